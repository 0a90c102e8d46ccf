/**
 * `npm run bench:cold`: bundles every function of the catalog as the CDK does and checks each
 * against its cold-start targets (issue 20: every bundle under 300 KB and module init under
 * 150 ms; the Authorizer under 100 KB and 80 ms; DashboardPage and Health under 50 KB). Prints a
 * row per function with the three largest sources of its bundle, then the sources summed over
 * every bundle. Exit 1 on a miss.
 *
 * Init time is the median of several `import()`s of the bundle, each in a fresh Node process.
 */
import { rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { authorizer, fallback, pipelineTasks, routes, workers } from '#catalog';
import { budgetFor, budgetsFile, bundleHandler, importOnce, median, pool, repoRoot, type Bundle } from './bundle';

const runsPerBundle = 5;
/** Node's own threads (GC, compiler) need a core too: two imports on a two-core machine double each other's time. */
const concurrency = Math.max(1, Math.min(2, Math.floor(availableParallelism() / 2)));
const outRoot = join(repoRoot, '.bench');

interface Fn {
  id: string;
  handler: string;
}

/** What AWS runs: a twin-only route (the twin's metrics) has no function there. */
const deployedRoutes = routes.filter((r) => !r.twinOnly);
const functions: Fn[] = [...deployedRoutes, authorizer, fallback, ...workers, ...Object.values(pipelineTasks)].map(({ id, handler }) => ({ id, handler }));

/** Routes sharing a handler module share one bundle, named after the first function using it. */
const handlers = functions.filter((f, i) => functions.findIndex((g) => g.handler === f.handler) === i);

await rm(outRoot, { recursive: true, force: true });
const started = performance.now();

const bundles = new Map<string, Bundle>();
for (const h of handlers) bundles.set(h.handler, await bundleHandler(h.handler, join(outRoot, h.id)));

const runs = handlers.flatMap((h) => Array.from({ length: runsPerBundle }, () => h.handler));
const samples = await pool(runs, concurrency, (handler) => importOnce(bundles.get(handler)!.file).then((ms) => ({ handler, ms })));
const initMs = new Map(handlers.map((h) => [h.handler, median(samples.filter((s) => s.handler === h.handler).map((s) => s.ms))]));

/** Issue 20's targets for a function. */
function targetsOf(id: string): { kb: number; ms: number } {
  if (id === 'Authorizer') return { kb: 100, ms: 80 };
  if (id === 'DashboardPage' || id === 'Health') return { kb: 50, ms: 150 };
  return { kb: 300, ms: 150 };
}

// `--write-budgets`: the budget test's ceilings from these bundles (scripts/bundle.ts `budgetFor`).
if (process.argv.includes('--write-budgets')) {
  const budgets = Object.fromEntries(
    handlers.map((h) => {
      const strictest = Math.min(...functions.filter((f) => f.handler === h.handler).map((f) => targetsOf(f.id).kb));
      return [h.handler, budgetFor(bundles.get(h.handler)!.bytes, strictest)];
    }),
  );
  await writeFile(budgetsFile, JSON.stringify(budgets, null, 2) + '\n');
  console.log(`wrote ${Object.keys(budgets).length} budgets to ${budgetsFile}`);
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
  const misses = [bytes >= target.kb * 1024 ? 'size' : '', ms >= target.ms ? 'init' : ''].filter(Boolean);
  return { ...f, bytes, ms, target, misses };
});

const table = [
  ['function', 'handler', 'size KB', '< KB', 'init ms', '< ms', 'result', 'largest sources (KB)'],
  ...rows.map((r) => [
    r.id,
    r.handler,
    kb(r.bytes),
    String(r.target.kb),
    r.ms.toFixed(1),
    String(r.target.ms),
    r.misses.length ? `FAIL (${r.misses.join(', ')})` : 'pass',
    largestSources(bundles.get(r.handler)!, 3),
  ]),
];
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
const numeric = new Set([2, 3, 4, 5]);
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

const failed = rows.filter((r) => r.misses.length);
const largest = rows.reduce((a, b) => (b.bytes > a.bytes ? b : a));
const slowest = rows.reduce((a, b) => (b.ms > a.ms ? b : a));
console.log(
  `\n${failed.length ? `${failed.length} of ${rows.length} functions miss a target` : `All ${rows.length} functions meet the targets`}` +
    ` (issue 20: size < 300 KB and init < 150 ms, the Authorizer < 100 KB and 80 ms, DashboardPage and Health < 50 KB; init the median of ${runsPerBundle} fresh processes, ${concurrency} at a time)` +
    `; ${handlers.length} bundles; largest ${largest.id} ${(largest.bytes / 1024).toFixed(1)} KB` +
    `, slowest ${slowest.id} ${slowest.ms.toFixed(1)} ms; took ${((performance.now() - started) / 1000).toFixed(1)} s.`,
);
const [load] = loadavg();
if (load > availableParallelism()) {
  console.log(`Note: load average ${load.toFixed(1)} on ${availableParallelism()} cores while measuring; init times are inflated, rerun on a quiet machine.`);
}
process.exitCode = failed.length ? 1 : 0;
