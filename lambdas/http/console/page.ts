import { publicRoute } from '../kit/public-route';
import type { Reply } from '../kit/reply';
import { NotFound } from '#core/errors';
import { consoleScriptText, consoleStyleText } from './script';
import { consoleHtml, screenPaths } from './page-html';

/**
 * The stage's bucket as a signed URL of it names it (the SDK's virtual-hosted form,
 * https://<bucket>.s3.<region>.amazonaws.com): the one other origin a preview fetches from. None
 * on the twin, whose files are served from its own origin.
 */
export function bucketOrigin(env: Record<string, string | undefined>): string[] {
  const bucket = env.BUCKET_NAME;
  const region = env.AWS_REGION;
  if (!bucket || !region || region === 'local' || !/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(bucket)) return [];
  return [`https://${bucket}.s3.${region}.amazonaws.com`];
}

/**
 * The dashboard's policy, plus what a document's preview needs: the file is fetched with the token
 * (connect-src: this origin, or the bucket's signed URL on AWS) and shown from a blob: URL in an
 * <img> or an <iframe> (a PDF). Trusted Types on: nothing writes HTML or script URLs.
 */
export const consoleCsp: Record<string, string> = {
  // The dashboard's (lambdas/http/dashboard/page.ts), written out: importing it would put the
  // dashboard's page and script in this function's bundle.
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'form-action': "'self'",
  'base-uri': "'none'",
  'frame-ancestors': "'none'",
  'connect-src': ["'self'", ...bucketOrigin(process.env)].join(' '),
  'img-src': "'self' data: blob:",
  'frame-src': 'blob:',
  'require-trusted-types-for': "'script'",
  'trusted-types': "'none'",
};

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
export const handler = publicRoute(
  {
    public: true,
    csp: consoleCsp,
  },
  async ({ event }): Promise<Reply> => {
    const path = event.rawPath.replace(/\/+$/, '') || '/console';
    const asset = assets[path];
    if (asset) return { status: 200, raw: { contentType: asset.contentType, body: await asset.body() }, headers: { 'Cache-Control': 'no-cache' } };
    if (path === '/console' || screenPaths.test(path)) {
      return { status: 200, raw: { contentType: 'text/html; charset=utf-8', body: consoleHtml }, headers: { 'Cache-Control': 'no-store' } };
    }
    throw new NotFound(`No console file or screen at ${event.rawPath}.`);
  },
);
