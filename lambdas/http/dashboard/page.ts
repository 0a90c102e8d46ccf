import type { Context } from 'aws-lambda';
import { route, type ApiEvent, type ApiResult } from '../kit/route';
import type { Reply } from '../kit/reply';
import { NotFound } from '../../core/errors';
import { pageHtml } from './page-html';
import { pageJs } from './page-js';
import { pageCss } from './page-css';

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

/** Leading indentation is all that is stripped: no line of the page or script is continued across lines. */
const dedent = (text: string) => text.replace(/^[ \t]+/gm, '');

const files: Record<string, { contentType: string; body: string; cache: string }> = {
  '/dashboard': { contentType: 'text/html; charset=utf-8', body: dedent(pageHtml), cache: 'no-store' },
  '/dashboard/app.js': { contentType: 'text/javascript; charset=utf-8', body: dedent(pageJs), cache: 'no-cache' },
  '/dashboard/app.css': { contentType: 'text/css; charset=utf-8', body: pageCss, cache: 'no-cache' },
};

const serve = route({ public: true, csp: dashboardCsp }, async ({ event }): Promise<Reply> => {
  const file = files[event.rawPath];
  if (!file) throw new NotFound(`No dashboard file at ${event.rawPath}.`);
  return { status: 200, raw: { contentType: file.contentType, body: file.body }, headers: { 'Cache-Control': file.cache } };
});

/**
 * @middy/http-security-headers merges `csp` into its own defaults, which add `sandbox` (no script
 * would run), `upgrade-insecure-requests` (breaks the twin on plain http), `navigate-to` and a
 * `report-to` with no endpoint; and its Permissions-Policy forbids `clipboard-write`, which the
 * "Copy secret" button needs. So the page's two headers are set here, exactly. Trusted Types stay
 * on: the script never writes HTML.
 */
const pageCsp = Object.entries({ ...dashboardCsp, 'require-trusted-types-for': "'script'", 'trusted-types': "'none'" })
  .map(([k, val]) => `${k} ${val}`)
  .join('; ');

function pageHeaders(res: ApiResult): ApiResult {
  const headers = { ...res.headers };
  if (headers['Content-Security-Policy'] !== undefined) {
    headers['Content-Security-Policy'] = pageCsp;
    delete headers['Report-To'];
  }
  const permissions = headers['Permissions-Policy'];
  if (typeof permissions === 'string') headers['Permissions-Policy'] = permissions.replace('clipboard-write=()', 'clipboard-write=(self)');
  return { ...res, headers };
}

/** The webhook dashboard: the page at /dashboard, its script and stylesheet beside it. */
export const handler = async (event: ApiEvent, context: Context): Promise<ApiResult> => pageHeaders(await serve(event, context));
