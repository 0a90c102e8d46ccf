import { browserScriptText, pageAssets } from '../kit/browser-script';

/**
 * How the dashboard's script (app.ts, a browser module type-checked by tsconfig.app.json) is
 * compiled to the text served as /dashboard/app.js, and its stylesheet (app.css) served as
 * /dashboard/app.css: files beside index.mjs of a bundle that contains this module (lib/bundling.ts
 * compiles them the same way), so their text is not in the bundle (DashboardPage stays under its
 * 50 KB target).
 */
export const { script: dashboardScript, style: dashboardStyle } = pageAssets('dashboard');

/** The compiled script: in a bundle, the file beside it; from the sources (the twin, the tests), compiled once. */
export const dashboardScriptText = browserScriptText(dashboardScript, import.meta.url);

/** The stylesheet's text: in a bundle, the file beside it; from the sources, read through esbuild once. */
export const dashboardStyleText = browserScriptText(dashboardStyle, import.meta.url);
