import { browserScriptText, pageAssets } from '../kit/browser-script';

/**
 * The console's script (app.ts and its screens, Preact + htm + signals, type-checked by
 * tsconfig.app.json), compiled by esbuild to the text served as /console/app.js, and its stylesheet
 * (app.css, /console/app.css): from the sources once per process (the twin, the tests), in a
 * bundle the files lib/bundling.ts wrote beside index.mjs.
 */
export const { script: consoleScript, style: consoleStyle } = pageAssets('console', { minifyScript: true });

export const consoleScriptText = browserScriptText(consoleScript, import.meta.url);

export const consoleStyleText = browserScriptText(consoleStyle, import.meta.url);
