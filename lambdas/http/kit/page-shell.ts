/**
 * The HTML shell of a page served with its own script and stylesheet (/<page>/app.js and
 * /<page>/app.css, http/kit/browser-script.ts): static, no inline script or style, so the content
 * security policy allows only 'self'. `body` is static markup; the script puts every piece of data
 * in with text nodes. Leading indentation is stripped (no line of a page continues across lines).
 */
export function pageShell(page: { path: string; lang: 'en' | 'es'; title: string; body: string }): string {
  return `<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
<link rel="stylesheet" href="${page.path}/app.css">
<script src="${page.path}/app.js" defer></script>
</head>
<body>
${page.body}
</body>
</html>
`.replace(/^[ \t]+/gm, '');
}
