import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fuzzRoutes, startRound, type Round } from '#support/fuzz/run';
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

/** The catalog in four slices, one test each (one world for all): none near the runner's limits (issue 45). */
const parts = 4;
const slice = Math.ceil(fuzzRoutes.length / parts);
let round: Round;

beforeAll(async () => {
  round = await startRound({
    apiUrl: t.twin.apiUrl,
    rootUrl: t.twin.url,
    adminToken,
    jobs: t.twin.jobs,
    dynamoEndpoint: inject('dynamoEndpoint'),
    seed,
    perRoute,
    route: process.env.FUZZ_ROUTE || undefined,
  });
});

afterAll(async () => {
  if (!round) return;
  await round.stop();
  console.log(formatReport(round.report, { perRoute: process.env.FUZZ_VERBOSE === '1' }));
});

describe('every route survives requests made from its schemas', () => {
  for (let part = 0; part < parts; part++) {
    const first = part * slice;
    const last = Math.min(fuzzRoutes.length, first + slice) - 1;
    it(`answers each below 500 with the error shape, refuses no valid request, keeps nothing of a refused write and nothing across tenants: routes ${first + 1}-${last + 1} of ${fuzzRoutes.length} (seed ${seed})`, async () => {
      const before = round.report.findings.length;
      await round.send((position) => position >= first && position <= last);
      const found = round.report.findings.slice(before);
      expect(found, formatFindings(found)).toEqual([]);
    }, 120_000);
  }
});
