import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { downloadDocument, downloadMinutes } from '#services/documents/documents';
import { DocumentsDownload } from '#catalog/documents';

export const handler = route(DocumentsDownload.schemas, async ({ params, principal }) => {
  const { doc, url } = await downloadDocument(principal, params.id);
  return ok({ download_url: url, expires_in_minutes: downloadMinutes, file_name: doc.fileName, file_size: doc.fileSize, mime_type: doc.mimeType });
});
