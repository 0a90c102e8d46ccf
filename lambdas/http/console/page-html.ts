/** The screens' addresses: each serves the page, and the script opens that screen. */
export const screenPaths = /^\/console\/(documents|manifests|review|quota|webhooks)(\/[A-Za-z0-9._~%-]{1,200})?$/;

/**
 * The console's HTML shell: static, no inline script or style. app.js renders everything into
 * #root with Preact (text nodes only: htm templates never take HTML strings).
 */
export const consoleHtml = `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Consola · Despacho</title>
<link rel="stylesheet" href="/console/app.css">
<script src="/console/app.js" defer></script>
</head>
<body>
<div id="root"><noscript>La consola necesita JavaScript. / The console needs JavaScript.</noscript></div>
</body>
</html>
`;
