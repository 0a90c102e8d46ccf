import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyCacheDir, lazyModules, workerBundlingCommands } from '#lib/bundling';

/*
 * A lazy module (lib/bundling.ts `lazyModules`) is bundled once per machine into a cache and copied
 * beside every bundle that loads it. Two synths at once once shipped a function with an empty
 * xray-tracer.mjs: one copied the file the other's esbuild had just opened. The hooks run here
 * as NodejsFunction runs them (bash, from a root with the repository's sources and esbuild), in a
 * root of their own so the machine's cache is not touched.
 */
const repo = resolve(import.meta.dirname, '../..');
const tracer = lazyModules.find((m) => m.outfile === 'xray-tracer.mjs')!;
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A project root whose lambdas/ and esbuild are the repository's, with a cache of its own. */
function root(): string {
  const dir = mkdtempSync(join(tmpdir(), 'despacho-lazy-'));
  roots.push(dir);
  symlinkSync(join(repo, 'lambdas'), join(dir, 'lambdas'));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(repo, 'node_modules', '.bin', 'esbuild'), join(dir, 'node_modules', '.bin', 'esbuild'));
  return dir;
}

/** A function's staging folder whose bundle contains the tracer's loader, as esbuild's metafile says. */
function bundleDir(rootDir: string, name: string): string {
  const dir = join(rootDir, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'index.meta.json'), JSON.stringify({ inputs: { [tracer.loadedBy]: {} } }));
  return dir;
}

async function afterBundling(rootDir: string, outputDir: string): Promise<void> {
  const child = spawn('bash', ['-c', workerBundlingCommands(rootDir, outputDir).join(' && ')], { cwd: rootDir, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`afterBundling exited ${code}: ${err}`);
}

async function exportsTracer(file: string): Promise<boolean> {
  const mod = (await import(`${pathToFileURL(file).href}?${Date.now()}`)) as { Tracer?: unknown };
  return typeof mod.Tracer === 'function';
}

describe('the lazy modules beside a bundle', { timeout: 120_000 }, () => {
  it("ships a whole module while another synth's esbuild holds the cached file empty", async () => {
    const r = root();
    const cache = lazyCacheDir(tracer, r);
    mkdirSync(cache, { recursive: true });
    // Another synth bundling the module into the cache: esbuild has opened (emptied) the file.
    const busy = setInterval(() => writeFileSync(join(cache, tracer.outfile), ''), 1);
    const out = bundleDir(r, 'asset.one');
    try {
      await afterBundling(r, out);
    } finally {
      clearInterval(busy);
    }
    expect(statSync(join(out, tracer.outfile)).size).toBeGreaterThan(10_000);
    expect(await exportsTracer(join(out, tracer.outfile))).toBe(true);
  });

  it('gives two synths bundling at once each the whole module, and the cache one whole copy', async () => {
    const r = root();
    const outs = ['asset.a', 'asset.b', 'asset.c'].map((n) => bundleDir(r, n));
    await Promise.all(outs.map((o) => afterBundling(r, o)));
    const files = outs.map((o) => readFileSync(join(o, tracer.outfile)));
    expect(files[0].length).toBeGreaterThan(10_000);
    for (const f of files) expect(f).toEqual(files[0]);
    for (const o of outs) expect(statSync(join(o, `${tracer.outfile}.map`)).size).toBeGreaterThan(0);
    expect(readFileSync(join(lazyCacheDir(tracer, r), tracer.outfile))).toEqual(files[0]);
    expect(await exportsTracer(join(outs[0], tracer.outfile))).toBe(true);
    // A later synth copies the cached module without bundling it again.
    const later = bundleDir(r, 'asset.later');
    await afterBundling(r, later);
    expect(readFileSync(join(later, tracer.outfile))).toEqual(files[0]);
  });
});
