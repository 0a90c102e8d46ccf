/**
 * The HTML shell of a page served with its own script and stylesheet (/<page>/app.js and
 * /<page>/app.css, http/kit/browser-script.ts): static, no inline script or style, so the content
 * security policy allows only 'self'. `body` is static markup; the script puts every piece of data
 * in with text nodes. Leading indentation is stripped (no line of a page continues across lines).
 */
/** The pages' icon, inline (both policies allow data: images): no /favicon.ico request, so no 404 on every load. */
export const favicon = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 16 16%22%3E%3Crect width=%2216%22 height=%2216%22 rx=%223%22 fill=%22%231b4f8a%22/%3E%3Cpath d=%22M4 4h4a4 4 0 0 1 0 8H4z%22 fill=%22white%22/%3E%3C/svg%3E';

export function pageShell(page: { path: string; lang: 'en' | 'es'; title: string; body: string }): string {
  return `<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
<link rel="icon" href="${favicon}">
<link rel="stylesheet" href="${page.path}/app.css">
<script src="${page.path}/app.js" defer></script>
</head>
<body>
${page.body}
</body>
</html>
`.replace(/^[ \t]+/gm, '');
}
