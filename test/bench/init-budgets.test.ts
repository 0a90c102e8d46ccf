import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizer, fallback, pipelineTasks, routes, workers } from '#catalog';
import { budgetsFile, repoRoot } from '#scripts/bundle';
import { bundleForInit, initBudgetFor, initSample, measureInitRatios, readInitBudgets, type InitMeasure } from '#scripts/init-guard';

/**
 * The init guard (issue 46, docs/benchmarks/cold-starts.md "The init guard"): a sample of the
 * functions, each bundled as deployed and imported in fresh processes interleaved with the
 * reference module (scripts/init-reference.ts), held to its ratio in scripts/init-budgets.json.
 * `INIT_GUARD=all npx vitest run test/bench/init-budgets.test.ts` measures every function.
 */
const budgets = readInitBudgets();
const sizeBudgets = JSON.parse(readFileSync(budgetsFile, 'utf8')) as Record<string, number>;
const handlers = [...new Set([...routes.filter((r) => !r.twinOnly), authorizer, fallback, ...workers, ...Object.values(pipelineTasks)].map((f) => f.handler))];
const sample = process.env.INIT_GUARD === 'all' ? handlers : initSample(handlers, sizeBudgets, new Date());

/**
 * The health check's handler importing one module its route does not use: the manifests' intake
 * service, as the manifests' list did before issue 46 (its S3, KMS, SQS and EventBridge clients,
 * the table's entities and ElectroDB come with it).
 */
const probeHandler = 'http/system/health';
const probeEntry = [`export * from '../../lambdas/${probeHandler}';`, "export * as unusedIntake from '#services/manifests/intake';"].join('\n');

describe('init budgets (scripts/init-budgets.json)', () => {
  let dir: string;
  let measured: Map<string, InitMeasure>;

  beforeAll(async () => {
    // Inside the repository, so the entry resolves the package's `#` imports; .bench/ is ignored by git.
    await mkdir(join(repoRoot, '.bench'), { recursive: true });
    dir = await mkdtemp(join(repoRoot, '.bench', 'init-guard-'));
    await writeFile(join(dir, 'probe.ts'), probeEntry);
    const entries = Object.fromEntries(sample.map((h) => [h, join(repoRoot, 'lambdas', `${h}.ts`)]));
    const { bundles, reference } = await bundleForInit({ ...entries, '@probe': join(dir, 'probe.ts') }, join(dir, 'out'));
    measured = await measureInitRatios(new Map([...bundles].map(([k, b]) => [k, b.file])), reference.file, 5);
    console.log(
      [...measured].map(([h, m]) => `${h}: ${m.ratio.toFixed(2)} of the reference (budget ${budgets[h] ?? budgets[probeHandler]}; ${m.ms.toFixed(0)} ms, reference ${m.referenceMs.toFixed(0)} ms)`).join('\n'),
    );
  }, 180_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('gives a function the measured ratio with a margin of 30% and 0.2, rounded up to a tenth', () => {
    expect(initBudgetFor(1.0)).toBe(1.5);
    expect(initBudgetFor(0.3)).toBe(0.6);
    expect(initBudgetFor(1.5)).toBe(2.2);
  });

  it('gives every deployed function an init budget, and no function that is gone', () => {
    expect(handlers.filter((h) => !(h in budgets)), 'run npm run bench:cold -- --write-budgets').toEqual([]);
    expect(Object.keys(budgets).filter((h) => !handlers.includes(h))).toEqual([]);
  });

  it('measures the authorizer and the largest bundles every run', () => {
    expect(sample).toContain('http/authorizer');
    const largest = Object.entries(sizeBudgets).sort((a, b) => b[1] - a[1])[0][0];
    expect(sample).toContain(largest);
  });

  it('holds each sampled function within its init budget, as a ratio to the reference', () => {
    const over = sample.filter((h) => measured.get(h)!.ratio > budgets[h]).map((h) => `${h} ${measured.get(h)!.ratio.toFixed(2)} > ${budgets[h]}`);
    expect(over).toEqual([]);
  });

  it('fails a handler that imports modules its route does not use', () => {
    // The same measurement as the functions', in the same run: the probe is `GET /health` plus a module it does not use.
    const probe = measured.get('@probe')!;
    expect(probe.ratio, `the probe measured ${probe.ratio.toFixed(2)} of the reference`).toBeGreaterThan(budgets[probeHandler]);
  });
});
