import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * How the reference page's script (docs-app.ts: Redoc and the call that renders openapi.json) is
 * compiled to the text served as /api/docs/redoc.js. lib/bundling.ts compiles it the same way
 * beside index.mjs of a bundle that contains this module, as it does the dashboard's.
 */
export const docsScript = {
  entry: 'lambdas/http/system/docs-app.ts',
  tsconfig: 'lambdas/http/system/tsconfig.docs.json',
  outfile: 'docs-app.js',
  servedBy: 'lambdas/http/system/docs-script.ts',
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
} as const;

let text: Promise<string> | undefined;

/** The compiled script: in a bundle, the file beside it; from the sources (the twin, the tests), compiled once here. */
export function docsScriptText(): Promise<string> {
  return (text ??= load());
}

async function load(): Promise<string> {
  const bundled = new URL(`./${docsScript.outfile}`, import.meta.url);
  if (existsSync(bundled)) return readFile(bundled, 'utf8');
  // A dev dependency, external to the Lambda bundle (lib/bundling.ts), which never reaches here.
  const { build } = await import('esbuild');
  const { format, platform, target } = docsScript;
  const out = await build({
    entryPoints: [fileURLToPath(new URL('./docs-app.ts', import.meta.url))],
    tsconfig: fileURLToPath(new URL('./tsconfig.docs.json', import.meta.url)),
    bundle: true,
    minify: true,
    write: false,
    format,
    platform,
    target,
    logLevel: 'warning',
  });
  return out.outputFiles[0].text;
}
