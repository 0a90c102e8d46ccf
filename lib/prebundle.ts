import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { lambdaBuildOptions, workerBundlingCommands } from './bundling';
import type { BundleCache } from './bundle-cache';

/**
 * Bundles every function the cache has no bundle for in one esbuild run (issue 43 item 7): esbuild
 * builds many entry points at once on every core, parsing each shared module once, where bundling
 * function by function (what NodejsFunction does) starts esbuild once per function and parses the
 * SDK, ElectroDB and our core again each time. Each output gets what the bundling hook adds beside
 * it (worker scripts, browser scripts, lazy modules: lib/bundling.ts) and is kept in the cache,
 * from which each function then takes it. The options are NodejsFunction's (lib/functions.ts
 * `bundling`), so a bundle is the same whichever way it was made; `entries` are paths from the
 * repository root. A function whose entry is not listed is bundled by NodejsFunction as before.
 * Synchronous (esbuild's buildSync), as constructs are built.
 */
export function prebundle(root: string, cache: BundleCache, entries: string[]): { built: number; reused: number } {
  const unique = [...new Set(entries)];
  const todo = unique.filter((e) => !cache.hit(e));
  if (todo.length === 0) return { built: 0, reused: unique.length };
  const outdir = join(cache.dir, `prebundle.${process.pid}`);
  rmSync(outdir, { recursive: true, force: true });
  try {
    const slots = new Map(todo.map((entry, i) => [`f${i}`, entry]));
    const result = buildSync({
      absWorkingDir: root,
      entryPoints: Object.fromEntries([...slots].map(([slot, entry]) => [slot, resolve(root, entry)])),
      entryNames: '[name]/index',
      outExtension: { '.js': '.mjs' },
      outdir,
      ...lambdaBuildOptions(root),
      metafile: true,
    });
    for (const [output, meta] of Object.entries(result.metafile.outputs)) {
      const slot = /\/(f\d+)\/index\.mjs$/.exec(output)?.[1];
      const entry = slot ? slots.get(slot) : undefined;
      if (!entry) continue;
      const dir = join(outdir, slot!);
      // What the bundling hook reads: the bundle's inputs, as esbuild's metafile names them.
      writeFileSync(join(dir, 'index.meta.json'), JSON.stringify({ inputs: meta.inputs }));
      const hook = spawnSync('bash', ['-c', workerBundlingCommands(root, dir, cache.metaPath(entry)).join(' && ')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
      if (hook.status !== 0) throw new Error(`bundling ${entry}: the hook beside its bundle failed (exit ${hook.status})`);
      cache.store(entry, dir);
    }
    return { built: todo.length, reused: unique.length - todo.length };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

