import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A browser script a page serves (the dashboard's, the reference's): how lib/bundling.ts compiles it beside index.mjs. */
export interface BrowserScript {
  entry: string;
  tsconfig: string;
  outfile: string;
  servedBy: string;
  format: 'iife';
  platform: 'browser';
  target: string;
  /** Minified wherever it is compiled (the stylesheet: esbuild's readable output names its source file). */
  minify?: boolean;
}

/**
 * A page's script (lambdas/http/<page>/app.ts) and stylesheet (app.css), served by its script.ts
 * and type-checked by its tsconfig.app.json: the two differ only in entry and outfile. The
 * stylesheet is always minified (esbuild's readable CSS names its source file).
 */
export function pageAssets(page: string, opts: { minifyScript?: boolean } = {}): { script: BrowserScript; style: BrowserScript } {
  const dir = `lambdas/http/${page}`;
  const base = { tsconfig: `${dir}/tsconfig.app.json`, servedBy: `${dir}/script.ts`, format: 'iife', platform: 'browser', target: 'es2020' } as const;
  return {
    script: { ...base, entry: `${dir}/app.ts`, outfile: `${page}-app.js`, ...(opts.minifyScript ? { minify: true } : {}) },
    style: { ...base, entry: `${dir}/app.css`, outfile: `${page}-app.css`, minify: true },
  };
}

/**
 * The compiled text of `script`, read once: in a bundle, the file lib/bundling.ts wrote beside it;
 * from the sources (the twin, the tests), compiled here once. `here` is the serving module's
 * `import.meta.url` (its entry and tsconfig sit beside it).
 */
export function browserScriptText(script: BrowserScript, here: string, opts: { minify?: boolean } = {}): () => Promise<string> {
  let text: Promise<string> | undefined;
  const load = async () => {
    const bundled = new URL(`./${script.outfile}`, here);
    if (existsSync(bundled)) return readFile(bundled, 'utf8');
    // A dev dependency, external to the Lambda bundle (lib/bundling.ts), which never reaches here.
    const { build } = await import('esbuild');
    const out = await build({
      entryPoints: [fileURLToPath(new URL(`./${basename(script.entry)}`, here))],
      tsconfig: fileURLToPath(new URL(`./${basename(script.tsconfig)}`, here)),
      bundle: true,
      ...(opts.minify || script.minify ? { minify: true } : {}),
      write: false,
      format: script.format,
      platform: script.platform,
      target: script.target,
      logLevel: 'warning',
    });
    return out.outputFiles[0].text;
  };
  return () => (text ??= load());
}
