import { publicRoute } from '../kit/public-route';
import type { Reply } from '../kit/reply';
import { NotFound } from '#core/errors';
import { pageHtml } from './page-html';
import { dashboardScriptText, dashboardStyleText } from './script';

/** Only this origin's own script, styles and API; no inline code, no framing. */
export const dashboardCsp: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'connect-src': "'self'",
  'img-src': "'self' data:",
  'form-action': "'self'",
  'base-uri': "'none'",
  'frame-ancestors': "'none'",
};

const files: Record<string, { contentType: string; body: () => string | Promise<string>; cache: string }> = {
  '/dashboard': { contentType: 'text/html; charset=utf-8', body: () => pageHtml, cache: 'no-store' },
  '/dashboard/app.js': { contentType: 'text/javascript; charset=utf-8', body: dashboardScriptText, cache: 'no-cache' },
  '/dashboard/app.css': { contentType: 'text/css; charset=utf-8', body: dashboardStyleText, cache: 'no-cache' },
};

/** The webhook dashboard: the page at /dashboard, its script and stylesheet beside it. */
export const handler = publicRoute(
  {
    public: true,
    // Trusted Types stay on: the script never writes HTML. "Copy secret" needs clipboard-write.
    csp: { ...dashboardCsp, 'require-trusted-types-for': "'script'", 'trusted-types': "'none'" },
    permissions: { 'clipboard-write': 'self' },
  },
  async ({ event }): Promise<Reply> => {
    const file = files[event.rawPath];
    if (!file) throw new NotFound(`No dashboard file at ${event.rawPath}.`);
    return { status: 200, raw: { contentType: file.contentType, body: await file.body() }, headers: { 'Cache-Control': file.cache } };
  },
);
