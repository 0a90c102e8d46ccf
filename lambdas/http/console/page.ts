import { route } from '../kit/route';
import type { Reply } from '../kit/reply';
import { NotFound } from '../../core/errors';
import { dashboardCsp } from '../dashboard/page';
import { consoleScriptText, consoleStyleText } from './script';
import { consoleHtml, screenPaths } from './page-html';

const html = consoleHtml.replace(/^[ \t]+/gm, '');

const assets: Record<string, { contentType: string; body: () => string | Promise<string> }> = {
  '/console/app.js': { contentType: 'text/javascript; charset=utf-8', body: consoleScriptText },
  '/console/app.css': { contentType: 'text/css; charset=utf-8', body: consoleStyleText },
};

/**
 * The console: the page at /console and at each screen's address (/console/documents, ...,
 * /console/review/<batch>), so a screen can be bookmarked and reloaded; its script and stylesheet
 * beside it. The dashboard's content security policy, Trusted Types included: nothing writes HTML.
 * Documents' previews are blob: URLs of files fetched with the token, shown in an <object>/<img>.
 */
export const handler = route(
  {
    public: true,
    csp: { ...dashboardCsp, 'img-src': "'self' data: blob:", 'object-src': 'blob:', 'frame-src': 'blob:', 'require-trusted-types-for': "'script'", 'trusted-types': "'none'" },
  },
  async ({ event }): Promise<Reply> => {
    const path = event.rawPath.replace(/\/+$/, '') || '/console';
    const asset = assets[path];
    if (asset) return { status: 200, raw: { contentType: asset.contentType, body: await asset.body() }, headers: { 'Cache-Control': 'no-cache' } };
    if (path === '/console' || screenPaths.test(path)) {
      return { status: 200, raw: { contentType: 'text/html; charset=utf-8', body: html }, headers: { 'Cache-Control': 'no-store' } };
    }
    throw new NotFound(`No console file or screen at ${event.rawPath}.`);
  },
);
