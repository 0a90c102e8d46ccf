/**
 * The init guard (issue 46): each function's module init measured as a RATIO to a reference
 * module's (scripts/init-reference.ts: the DynamoDB document client and ElectroDB, what every
 * function that reads the table carries), each import in a fresh Node process, the reference
 * imported just before or just after the function in the same round, so that the machine's speed
 * and load cancel out. Milliseconds on a loaded two-core CI machine double from one minute to the
 * next; the ratio of two imports made back to back moves far less. Used by `npm run bench:cold`
 * (which prints the ratios and writes the budgets) and test/bench/init-budgets.test.ts (in `npm test`).
 */
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { importTimes, lambdaBuildOptions, median, repoRoot } from './bundle';

/** Each handler's init budget, as a ratio to the reference's init (`npm run bench:cold -- --write-budgets` writes it). */
export const initBudgetsFile = join(repoRoot, 'scripts', 'init-budgets.json');

/** The reference module every ratio is relative to. */
export const referenceEntry = join(repoRoot, 'scripts', 'init-reference.ts');

export function readInitBudgets(): Record<string, number> {
  return JSON.parse(readFileSync(initBudgetsFile, 'utf8')) as Record<string, number>;
}

/**
 * A function's init budget from its measured ratio: the ratio with a generous margin, 30% of it
 * plus 0.2 of the reference, rounded up to the next tenth (1.0 -> 1.5, 1.5 -> 2.2). What it lets
 * through: the noise of a median of paired imports on a loaded machine (measured on the two-core
 * machine at loads of 3 to 8: a function's ratio moved by up to 0.2 between runs). What it
 * catches: a module the route does not use that costs about half the reference's init or more on
 * top of its own (the manifests' intake service with the tariff classifier and the label's PDF
 * writer cost 0.8 in `GET /v1/me`'s bundle; the intake service alone, 0.35 to 0.4, is at the edge).
 * Smaller additions are the size budget's to catch (scripts/bundle-budgets.json).
 */
export function initBudgetFor(ratio: number): number {
  return Math.ceil(Number((ratio * 1.3 + 0.2).toFixed(6)) * 10) / 10;
}

export interface InitBundle {
  file: string;
  bytes: number;
}

/**
 * Bundles each entry (name -> absolute path of its entry module) as deployed, all in one esbuild
 * run, into `<outDir>/<name>/index.mjs`, plus the reference as `<outDir>/reference/index.mjs`.
 * Worker, browser and lazy modules beside a bundle are not built: none is read at import.
 */
export async function bundleForInit(entries: Record<string, string>, outDir: string): Promise<{ bundles: Map<string, InitBundle>; reference: InitBundle }> {
  const all = { ...entries, '@reference': referenceEntry };
  const name = (n: string) => (n === '@reference' ? 'reference' : n);
  await build({
    ...lambdaBuildOptions,
    entryPoints: Object.fromEntries(Object.entries(all).map(([n, entry]) => [`${name(n)}/index`, entry])),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: repoRoot,
  });
  const bundles = new Map<string, InitBundle>();
  for (const n of Object.keys(all)) {
    const file = join(outDir, name(n), 'index.mjs');
    bundles.set(n, { file, bytes: (await stat(file)).size });
  }
  const reference = bundles.get('@reference')!;
  bundles.delete('@reference');
  return { bundles, reference };
}

export interface InitMeasure {
  /** Median over the rounds of the function's init CPU time divided by the reference's of the same round: what the budget holds. */
  ratio: number;
  /** The same with wall-clock times: shown, not held (a loaded machine scatters it more). */
  wallRatio: number;
  /** Median init of the function, ms. */
  ms: number;
  /** Median init of the reference, ms, over the function's rounds. */
  referenceMs: number;
}

/**
 * Measures each bundle `rounds` times interleaved with the reference: round r imports, for every
 * bundle in turn, the reference then the bundle (or, on odd rounds, the bundle then the reference),
 * each in a fresh process, one at a time. The ratio of a pair is taken within the pair, so a
 * burst of load hits both halves; the median of the pairs drops a pair split by a burst.
 */
export async function measureInitRatios(files: ReadonlyMap<string, string>, reference: string, rounds = 3): Promise<Map<string, InitMeasure>> {
  type Times = Awaited<ReturnType<typeof importTimes>>;
  const samples = new Map<string, { fn: Times; ref: Times }[]>([...files.keys()].map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, file] of files) {
      let ref: Times;
      let fn: Times;
      if (r % 2 === 0) {
        ref = await importTimes(reference);
        fn = await importTimes(file);
      } else {
        fn = await importTimes(file);
        ref = await importTimes(reference);
      }
      samples.get(name)!.push({ fn, ref });
    }
  }
  return new Map(
    [...samples].map(([name, s]) => [
      name,
      {
        ratio: median(s.map((x) => x.fn.cpuMs / x.ref.cpuMs)),
        wallRatio: median(s.map((x) => x.fn.ms / x.ref.ms)),
        ms: median(s.map((x) => x.fn.ms)),
        referenceMs: median(s.map((x) => x.ref.ms)),
      },
    ]),
  );
}

/** How many of the largest bundles (by size budget) the guard measures on every run. */
export const largestMeasured = 4;
/** Functions the guard measures on every run besides those: the smallest function on the table, a list, and the manifests' list (issue 46's example). */
export const alwaysMeasured = ['http/authorizer', 'http/auth/me', 'http/orders/list', 'http/manifests/alternative/list'] as const;
/** How many of the others the guard measures per run, chosen by the date (a different pair each day, every one within about seven weeks). */
export const rotatingMeasured = 2;

/**
 * The functions `npm test`'s guard measures: the authorizer and the fixed few, the largest
 * bundles by their size budget, and a pair of the others that rotates by the day (UTC), so that
 * over the weeks every function is measured while a run stays under half a minute.
 */
export function initSample(handlers: readonly string[], sizeBudgets: Record<string, number>, at: Date): string[] {
  const fixed = alwaysMeasured.filter((h) => handlers.includes(h));
  const largest = handlers.filter((h) => !fixed.includes(h as never)).sort((a, b) => (sizeBudgets[b] ?? 0) - (sizeBudgets[a] ?? 0) || a.localeCompare(b)).slice(0, largestMeasured);
  const rest = handlers.filter((h) => !fixed.includes(h as never) && !largest.includes(h)).sort();
  const day = Math.floor(at.getTime() / 86_400_000);
  const rotating = Array.from({ length: Math.min(rotatingMeasured, rest.length) }, (_, i) => rest[(day * rotatingMeasured + i) % rest.length]);
  return [...fixed, ...largest, ...rotating];
}
