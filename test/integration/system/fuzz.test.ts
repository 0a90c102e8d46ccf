import { describe, expect, inject, it } from 'vitest';
import { fuzzRound } from '#support/fuzz/run';
import { formatFindings, formatReport } from '#support/fuzz/report';
import { adminToken, useTwin } from '#support/twin';

/**
 * Issue 13, item 2: every catalog route fed requests that fast-check makes from the route's
 * schemas (valid, mutated field by field, hostile, multipart whole and damaged, and as another
 * tenant), from a fixed seed, against this file's twin; the properties are in
 * test/support/fuzz/run.ts. FUZZ_SEED replays another seed, FUZZ_ROUTE one route, FUZZ_RUNS
 * sets the requests per route; `npm run fuzz -- --seconds N` runs longer, seed after seed.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20261123);
const perRoute = Number(process.env.FUZZ_RUNS ?? 20);

const t = useTwin();

describe('every route survives requests made from its schemas', () => {
  it(`answers each below 500 with the error shape, refuses no valid request, keeps nothing of a refused write and nothing across tenants (seed ${seed})`, async () => {
    const report = await fuzzRound({
      apiUrl: t.twin.apiUrl,
      rootUrl: t.twin.url,
      adminToken,
      jobs: t.twin.jobs,
      dynamoEndpoint: inject('dynamoEndpoint'),
      seed,
      perRoute,
      route: process.env.FUZZ_ROUTE || undefined,
    });
    console.log(formatReport(report, { perRoute: process.env.FUZZ_VERBOSE === '1' }));
    expect(report.findings, formatFindings(report.findings)).toEqual([]);
  }, 120_000);
});
