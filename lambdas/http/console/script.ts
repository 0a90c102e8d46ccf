import { browserScriptText, type BrowserScript } from '../kit/browser-script';

/**
 * The console's script (app.ts and its screens, Preact + htm + signals, type-checked by
 * tsconfig.app.json), compiled by esbuild to the text served as /console/app.js: from the sources
 * once per process (the twin, the tests), in a bundle the file lib/bundling.ts wrote beside index.mjs.
 */
export const consoleScript = {
  entry: 'lambdas/http/console/app.ts',
  tsconfig: 'lambdas/http/console/tsconfig.app.json',
  outfile: 'console-app.js',
  servedBy: 'lambdas/http/console/script.ts',
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
} as const satisfies BrowserScript;

export const consoleScriptText = browserScriptText(consoleScript, import.meta.url);

export const consoleStyle = {
  entry: 'lambdas/http/console/app.css',
  tsconfig: 'lambdas/http/console/tsconfig.app.json',
  outfile: 'console-app.css',
  servedBy: 'lambdas/http/console/script.ts',
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
} as const satisfies BrowserScript;

export const consoleStyleText = browserScriptText(consoleStyle, import.meta.url);
