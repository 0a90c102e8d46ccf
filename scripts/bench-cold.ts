/**
 * `npm run bench:cold`: bundles every function of the catalog as the CDK does and checks each
 * against its cold-start targets (issue 46: every module init under 100 ms, the Authorizer's under
 * 50 ms; issue 20: every bundle under 300 KB, the Authorizer under 100 KB, DashboardPage and Health
 * under 50 KB). Prints a row per function with the three largest sources of its bundle, then the
 * sources summed over every bundle, and writes the rows to .bench/cold.json. Exit 1 on an init
 * miss (the size targets are reported, not enforced: see docs/benchmarks/cold-starts.md).
 *
 * Init time is the median of 3 `import()`s of the bundle, each in a fresh Node process.
 * `--only Authorizer,OrdersList` measures only those functions; `--runs 5` takes another count.
 */
import { rm, writeFile } from 'node:fs/promises';
import { median } from './bundle';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { authorizer, fallback, pipelineTasks, routes, workers } from '#catalog';
import { budgetFor, budgetsFile, bundleHandler, repoRoot, type Bundle } from './bundle';
import { bundleForInit, initBudgetFor, initBudgetsFile, measureInitRatios, readInitBudgets } from './init-guard';

/** Issue 46: the median of 3 fresh processes per function (`--runs N` for another count). */
const runsArg = process.argv.indexOf('--runs');
const runsPerBundle = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
/** `--only Authorizer,OrdersList`: only these functions (and no budgets written). */
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? new Set(process.argv[onlyArg + 1].split(',')) : undefined;
const outRoot = join(repoRoot, '.bench');

interface Fn {
  id: string;
  handler: string;
}

/** What AWS runs: a twin-only route (the twin's metrics) has no function there. */
const deployedRoutes = routes.filter((r) => !r.twinOnly);
const allFunctions: Fn[] = [...deployedRoutes, authorizer, fallback, ...workers, ...Object.values(pipelineTasks)].map(({ id, handler }) => ({ id, handler }));
const unknown = only ? [...only].filter((id) => !allFunctions.some((f) => f.id === id)) : [];
if (unknown.length) throw new Error(`--only: no function ${unknown.join(', ')}`);
const functions = only ? allFunctions.filter((f) => only.has(f.id)) : allFunctions;

/** Routes sharing a handler module share one bundle, named after the first function using it. */
const handlers = functions.filter((f, i) => functions.findIndex((g) => g.handler === f.handler) === i);

await rm(outRoot, { recursive: true, force: true });
const started = performance.now();

const bundles = new Map<string, Bundle>();
for (const h of handlers) bundles.set(h.handler, await bundleHandler(h.handler, join(outRoot, h.id)));

// One import at a time (Node's own threads, GC and compiler, need the other core), each function's
// interleaved with the init guard's reference module (scripts/init-guard.ts): its ms and its ratio.
const { reference } = await bundleForInit({}, join(outRoot, '@reference'));
const measured = await measureInitRatios(new Map(handlers.map((h) => [h.handler, bundles.get(h.handler)!.file])), reference.file, runsPerBundle);
const initMs = new Map([...measured].map(([h, m]) => [h, m.ms]));
const ratioOf = (handler: string) => measured.get(handler)!.ratio;
const initBudgets = (() => {
  try {
    return readInitBudgets();
  } catch {
    return {} as Record<string, number>;
  }
})();

/** Issue 20's size targets and issue 46's init targets for a function: every init under 100 ms, the Authorizer's under 50 ms. */
function targetsOf(id: string): { kb: number; ms: number } {
  if (id === 'Authorizer') return { kb: 100, ms: 50 };
  if (id === 'DashboardPage' || id === 'Health') return { kb: 50, ms: 100 };
  return { kb: 300, ms: 100 };
}

// `--write-budgets`: the budget test's ceilings from these bundles (scripts/bundle.ts `budgetFor`).
if (process.argv.includes('--write-budgets') && !only) {
  const budgets = Object.fromEntries(
    handlers.map((h) => {
      const strictest = Math.min(...functions.filter((f) => f.handler === h.handler).map((f) => targetsOf(f.id).kb));
      return [h.handler, budgetFor(bundles.get(h.handler)!.bytes, strictest)];
    }),
  );
  await writeFile(budgetsFile, JSON.stringify(budgets, null, 2) + '\n');
  console.log(`wrote ${Object.keys(budgets).length} budgets to ${budgetsFile}`);
  const ratios = Object.fromEntries(handlers.map((h) => [h.handler, initBudgetFor(ratioOf(h.handler))]));
  await writeFile(initBudgetsFile, JSON.stringify(ratios, null, 2) + '\n');
  console.log(`wrote ${Object.keys(ratios).length} init budgets (ratios to the reference) to ${initBudgetsFile}`);
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const largestSources = (b: Bundle, n: number) =>
  Object.entries(b.packages)
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([p, bytes]) => `${p} ${Math.round(bytes / 1024)}`)
    .join(', ');

const rows = functions.map((f) => {
  const bytes = bundles.get(f.handler)!.bytes;
  const ms = initMs.get(f.handler)!;
  const target = targetsOf(f.id);
  const overRatio = f.handler in initBudgets && ratioOf(f.handler) > initBudgets[f.handler];
  const misses = [bytes >= target.kb * 1024 ? 'size' : '', ms >= target.ms ? 'init' : '', overRatio ? 'ratio' : ''].filter(Boolean);
  return { ...f, bytes, ms, target, misses };
});

const table = [
  ['function', 'handler', 'size KB', '< KB', 'init ms', '< ms', 'ratio', '< ratio', 'result', 'largest sources (KB)'],
  ...rows.map((r) => [
    r.id,
    r.handler,
    kb(r.bytes),
    String(r.target.kb),
    r.ms.toFixed(1),
    String(r.target.ms),
    ratioOf(r.handler).toFixed(2),
    String(initBudgets[r.handler] ?? '-'),
    r.misses.includes('init') ? `SLOW${r.misses.includes('size') ? ' (and size)' : ''}` : r.misses.length ? `over (${r.misses.join(', ')})` : 'pass',
    largestSources(bundles.get(r.handler)!, 3),
  ]),
];
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
const numeric = new Set([2, 3, 4, 5, 6, 7]);
for (const row of table) {
  console.log(row.map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd());
}

// Where the bytes go over every bundle: what a cut at one source would save in all.
const totals = new Map<string, { bytes: number; bundles: number }>();
for (const b of bundles.values()) {
  for (const [p, bytes] of Object.entries(b.packages)) {
    const t = totals.get(p) ?? { bytes: 0, bundles: 0 };
    totals.set(p, { bytes: t.bytes + bytes, bundles: t.bundles + 1 });
  }
}
console.log(`\nlargest sources over the ${bundles.size} bundles (KB in all, bundles holding them):`);
for (const [p, t] of [...totals].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, 15)) {
  console.log(`  ${p.padEnd(40)} ${kb(t.bytes).padStart(9)}  ${String(t.bundles).padStart(3)}`);
}

await writeFile(join(outRoot, 'cold.json'), JSON.stringify(rows.map(({ id, handler, bytes, ms }) => ({ id, handler, bytes, ms, ratio: ratioOf(handler) })), null, 2) + '\n');
const failed = rows.filter((r) => r.misses.length);
const slow = rows.filter((r) => r.misses.includes('init'));
const largest = rows.reduce((a, b) => (b.bytes > a.bytes ? b : a));
const slowest = rows.reduce((a, b) => (b.ms > a.ms ? b : a));
console.log(
  `\n${slow.length ? `${slow.length} of ${rows.length} functions SLOW (init over target: ${slow.map((r) => `${r.id} ${r.ms.toFixed(0)} ms`).join(', ')})` : `All ${rows.length} functions initialize within target`}` +
    `; ${failed.length - slow.length} more over their size target only` +
    ` (issue 46: init < 100 ms, the Authorizer < 50 ms; issue 20: size < 300 KB, the Authorizer < 100 KB, DashboardPage and Health < 50 KB; init the median of ${runsPerBundle} fresh processes, one at a time, each after or before the reference module; reference ${(median([...measured.values()].map((m) => m.referenceMs))).toFixed(1)} ms)` +
    `; ${handlers.length} bundles; largest ${largest.id} ${(largest.bytes / 1024).toFixed(1)} KB` +
    `, slowest ${slowest.id} ${slowest.ms.toFixed(1)} ms; took ${((performance.now() - started) / 1000).toFixed(1)} s.`,
);
const [load] = loadavg();
if (load > availableParallelism()) {
  console.log(`Note: load average ${load.toFixed(1)} on ${availableParallelism()} cores while measuring; init times are inflated, rerun on a quiet machine.`);
}
process.exitCode = slow.length ? 1 : 0;
