/**
 * `npm run bench:cold`: bundles every function of the catalog as the CDK does and checks each
 * against the cold-start targets (bundle under 1 MiB, module init under 300 ms). Exit 1 on a miss.
 *
 * Init time is the median of several `import()`s of the bundle, each in a fresh Node process.
 */
import { rm } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { authorizer, fallback, pipelineTasks, routes, workers } from '../lambdas/catalog';
import { bundleHandler, importOnce, median, pool, repoRoot, targets, type Bundle } from './bundle';

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

const rows = functions.map((f) => {
  const bytes = bundles.get(f.handler)!.bytes;
  const ms = initMs.get(f.handler)!;
  const misses = [bytes >= targets.maxBytes ? 'size' : '', ms >= targets.maxInitMs ? 'init' : ''].filter(Boolean);
  return { ...f, bytes, ms, misses };
});

const table = [
  ['function', 'handler', 'size KB', 'init ms', 'result'],
  ...rows.map((r) => [r.id, r.handler, (r.bytes / 1024).toFixed(1), r.ms.toFixed(1), r.misses.length ? `FAIL (${r.misses.join(', ')})` : 'pass']),
];
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
const numeric = new Set([2, 3]);
for (const row of table) {
  console.log(row.map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd());
}

const failed = rows.filter((r) => r.misses.length);
const largest = rows.reduce((a, b) => (b.bytes > a.bytes ? b : a));
const slowest = rows.reduce((a, b) => (b.ms > a.ms ? b : a));
console.log(
  `\n${failed.length ? `${failed.length} of ${rows.length} functions miss a target` : `All ${rows.length} functions meet the targets`}` +
    ` (size < ${targets.maxBytes / 1024} KB, init < ${targets.maxInitMs} ms, median of ${runsPerBundle} fresh processes, ${concurrency} at a time)` +
    `; ${handlers.length} bundles; largest ${largest.id} ${(largest.bytes / 1024).toFixed(1)} KB` +
    `, slowest ${slowest.id} ${slowest.ms.toFixed(1)} ms; took ${((performance.now() - started) / 1000).toFixed(1)} s.`,
);
const [load] = loadavg();
if (load > availableParallelism()) {
  console.log(`Note: load average ${load.toFixed(1)} on ${availableParallelism()} cores while measuring; init times are inflated, rerun on a quiet machine.`);
}
process.exitCode = failed.length ? 1 : 0;
