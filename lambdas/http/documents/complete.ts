import { route } from '../kit/route';
import { created, ok } from '../kit/reply';
import { documentView } from '#core/documents/views';
import { completeUpload } from '#services/documents/documents';
import { DocumentsUploadComplete } from '#catalog/documents';

export const handler = route(DocumentsUploadComplete.schemas, async ({ params, principal }) => {
  const { doc, replayed } = await completeUpload(principal, params.uploadId);
  return replayed ? ok(documentView(doc), { status: 201, message: 'Upload already completed.' }) : created(documentView(doc), 'Document uploaded.');
});
