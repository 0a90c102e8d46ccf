import { browserScriptText, type BrowserScript } from '../kit/browser-script';

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
} as const satisfies BrowserScript;

/** The compiled script: in a bundle, the file beside it; from the sources (the twin, the tests), compiled once. */
export const dashboardScriptText = browserScriptText(dashboardScript, import.meta.url);

/**
 * The dashboard's stylesheet (app.css), served as /dashboard/app.css: a file beside index.mjs like
 * the script, so its text is not in the bundle (DashboardPage stays under its 50 KB target).
 */
export const dashboardStyle = {
  entry: 'lambdas/http/dashboard/app.css',
  tsconfig: 'lambdas/http/dashboard/tsconfig.app.json',
  outfile: 'dashboard-app.css',
  servedBy: 'lambdas/http/dashboard/script.ts',
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
} as const satisfies BrowserScript;

/** The stylesheet's text: in a bundle, the file beside it; from the sources, read through esbuild once. */
export const dashboardStyleText = browserScriptText(dashboardStyle, import.meta.url);
