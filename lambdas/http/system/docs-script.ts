import { browserScriptText, type BrowserScript } from '../kit/browser-script';

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
} as const satisfies BrowserScript;

/** The compiled script: in a bundle, the file beside it; from the sources (the twin, the tests), compiled once. */
export const docsScriptText = browserScriptText(docsScript, import.meta.url, { minify: true });
