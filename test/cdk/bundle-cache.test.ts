/**
 * The bundle cache between synths (lib/bundle-cache.ts): a bundle is reused only while every file
 * it was built from is as it was, on real files in a temporary repository.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BundleCache } from '../../lib/bundle-cache';

let root: string;
const write = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};
const entry = 'lambdas/http/orders/list.ts';
const inputs = [entry, 'lambdas/core/orders/model.ts', 'node_modules/electrodb/index.js'];

/** What bundling leaves: a bundle folder and, where the hook put it, the metafile naming its inputs. */
function build(cache: BundleCache, content: string, listed = inputs): string {
  const out = join(root, 'cdk.out', `asset.${Math.random().toString(36).slice(2)}`);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.mjs'), content);
  mkdirSync(dirname(cache.metaPath(entry)), { recursive: true });
  writeFileSync(cache.metaPath(entry), JSON.stringify({ inputs: Object.fromEntries(listed.map((i) => [i, {}])) }));
  cache.store(entry, out);
  return out;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bundle-cache-'));
  for (const f of ['package-lock.json', 'package.json', 'tsconfig.json', 'lib/bundling.ts', 'lib/bundle-cache.ts']) write(f, `${f} v1`);
  write(entry, 'export const handler = 1;');
  write('lambdas/core/orders/model.ts', 'export const model = 1;');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the bundle cache', () => {
  it('has nothing for a function never bundled, and gives back the bundle a synth kept', () => {
    const cache = new BundleCache(root, { minify: true });
    expect(cache.hit(entry)).toBeUndefined();
    build(cache, 'bundle one');
    const hit = new BundleCache(root, { minify: true }).hit(entry);
    expect(hit).toBeDefined();
    expect(readFileSync(join(hit!, 'index.mjs'), 'utf8')).toBe('bundle one');
  });

  it('bundles again when a file of ours the bundle contains changed, and not for a file it does not contain', () => {
    build(new BundleCache(root, { minify: true }), 'bundle one');
    write('lambdas/core/other.ts', 'export const unrelated = 2;');
    expect(new BundleCache(root, { minify: true }).hit(entry)).toBeDefined();
    write('lambdas/core/orders/model.ts', 'export const model = 2;');
    expect(new BundleCache(root, { minify: true }).hit(entry)).toBeUndefined();
  });

  it('bundles again when the lock file, the bundling options or the bundling code changed', () => {
    build(new BundleCache(root, { minify: true }), 'bundle one');
    expect(new BundleCache(root, { minify: false }).hit(entry)).toBeUndefined();
    write('package-lock.json', 'package-lock.json v2');
    expect(new BundleCache(root, { minify: true }).hit(entry)).toBeUndefined();
  });

  it('serves a browser script: any change under lambdas/ bundles it again', () => {
    const served = [...inputs, 'lambdas/http/console/script.ts'];
    write('lambdas/http/console/script.ts', 'export const consoleScript = 1;');
    build(new BundleCache(root, { minify: true }), 'console bundle', served);
    expect(new BundleCache(root, { minify: true }).hit(entry)).toBeDefined();
    write('lambdas/http/console/app.ts', 'document.title = "changed";');
    expect(new BundleCache(root, { minify: true }).hit(entry)).toBeUndefined();
  });
});
