import { pageShell } from '../kit/page-shell';

/** The screens' addresses: each serves the page, and the script opens that screen. */
export const screenPaths = /^\/console\/(inbox|documents|manifests|review|quota|webhooks|search)(\/[A-Za-z0-9._~%-]{1,200})?$/;

/**
 * The console's HTML shell: static, no inline script or style. app.js renders everything into
 * #root with Preact (text nodes only: htm templates never take HTML strings).
 */
export const consoleHtml = pageShell({
  path: '/console',
  lang: 'es',
  title: 'Consola · Despacho',
  body: '<div id="root"><noscript>La consola necesita JavaScript. / The console needs JavaScript.</noscript></div>',
});
