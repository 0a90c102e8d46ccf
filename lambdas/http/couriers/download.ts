import { route } from '../kit/route';
import type { Reply } from '../kit/reply';
import { contentDisposition } from '../../core/documents/files';
import { downloadManifest } from '../../services/manifests/download';
import { CouriersDownload } from './routes';

export const handler = route(CouriersDownload.schemas, async ({ params, query, principal }): Promise<Reply> => {
  const out = await downloadManifest(principal, params.manifest, query.format);
  if (out.kind === 'redirect') return { status: 303, headers: { Location: out.url } };
  // JSON is answered as the text it was built as (a body, not an attachment); files as attachments.
  if (query.format === 'json') return { status: 200, raw: { contentType: 'application/json', body: out.body } };
  return { status: 200, raw: { contentType: out.contentType, body: out.body }, headers: { 'Content-Disposition': contentDisposition(out.fileName) } };
});
