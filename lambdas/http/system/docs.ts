import { publicRoute } from '../kit/public-route';
import type { Reply } from '../kit/reply';
import { NotFound } from '#core/errors';
import { docsScriptText } from './docs-script';

/**
 * Only this origin's script and document. Redoc writes its styles in <style> elements
 * (styled-components) and searches in a worker it starts from a blob: URL; nothing else is let in.
 */
export const docsCsp: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'connect-src': "'self'",
  'img-src': "'self' data:",
  'font-src': "'self' data:",
  'worker-src': "'self' blob:",
  'form-action': "'none'",
  'base-uri': "'none'",
  'frame-ancestors': "'none'",
};

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Despacho API reference</title>
</head>
<body>
<div id="redoc"></div>
<script src="/api/docs/redoc.js"></script>
</body>
</html>
`;

/** GET /api/docs: the human reference page, and /api/docs/redoc.js, its script (Redoc, bundled). */
export const handler = publicRoute({ public: true, csp: docsCsp }, async ({ event }): Promise<Reply> => {
  if (event.rawPath === '/api/docs') return { status: 200, raw: { contentType: 'text/html; charset=utf-8', body: page }, headers: { 'Cache-Control': 'no-cache' } };
  if (event.rawPath === '/api/docs/redoc.js') {
    return { status: 200, raw: { contentType: 'text/javascript; charset=utf-8', body: await docsScriptText() }, headers: { 'Cache-Control': 'public, max-age=300' } };
  }
  throw new NotFound(`No reference file at ${event.rawPath}.`);
});
