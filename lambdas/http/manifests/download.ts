import { route } from '../kit/route';
import type { Reply } from '../kit/reply';
import { acceptsGzip } from '../kit/accept-encoding';
import { contentDisposition } from '#core/documents/files';
import { downloadManifest } from '#services/manifests/download';
import { CouriersDownload } from '#catalog/manifests';

export const handler = route(CouriersDownload.schemas, async ({ params, query, headers, principal }): Promise<Reply> => {
  const out = await downloadManifest(principal, params.manifest, query.format, { gzip: acceptsGzip(headers['accept-encoding']), lang: query.lang });
  // The answer depends on Accept-Encoding: a cache keeps one per encoding.
  const common: Record<string, string> = { Vary: 'Accept-Encoding' };
  if (out.contentEncoding) common['Content-Encoding'] = out.contentEncoding;
  if (out.kind === 'redirect') return { status: 303, headers: { Location: out.url, Vary: 'Accept-Encoding' } };
  // JSON and NDJSON are answered as the text they were built as (a body, not an attachment); files as attachments.
  if (query.format === 'json' || query.format === 'ndjson') return { status: 200, raw: { contentType: out.contentType, body: out.body }, headers: common };
  return { status: 200, raw: { contentType: out.contentType, body: out.body }, headers: { 'Content-Disposition': contentDisposition(out.fileName), ...common } };
});
