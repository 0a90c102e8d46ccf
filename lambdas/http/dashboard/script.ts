import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * How the dashboard's script (app.ts, a browser module type-checked by tsconfig.app.json) is
 * compiled to the text served as /dashboard/app.js. lib/bundling.ts compiles it the same way
 * beside index.mjs of a bundle that contains this module.
 */
export const dashboardScript = {
  entry: 'lambdas/http/dashboard/app.ts',
  tsconfig: 'lambdas/http/dashboard/tsconfig.app.json',
  outfile: 'dashboard-app.js',
  servedBy: 'lambdas/http/dashboard/script.ts',
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
} as const;

let text: Promise<string> | undefined;

/** The compiled script: in a bundle, the file beside it; from the sources (the twin, the tests), compiled once here. */
export function dashboardScriptText(): Promise<string> {
  return (text ??= load());
}

async function load(): Promise<string> {
  const bundled = new URL(`./${dashboardScript.outfile}`, import.meta.url);
  if (existsSync(bundled)) return readFile(bundled, 'utf8');
  // A dev dependency, external to the Lambda bundle (lib/bundling.ts), which never reaches here.
  const { build } = await import('esbuild');
  const { format, platform, target } = dashboardScript;
  const out = await build({
    entryPoints: [fileURLToPath(new URL('./app.ts', import.meta.url))],
    tsconfig: fileURLToPath(new URL('./tsconfig.app.json', import.meta.url)),
    bundle: true,
    write: false,
    format,
    platform,
    target,
    logLevel: 'warning',
  });
  return out.outputFiles[0].text;
}
