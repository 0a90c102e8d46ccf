import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { downloadDocument, downloadMinutes } from '../../services/documents/documents';

export const handler = route({ params: IdParams }, async ({ params, principal }) => {
  const { doc, url } = await downloadDocument(principal, params.id);
  return ok({ download_url: url, expires_in_minutes: downloadMinutes, file_name: doc.fileName, file_size: doc.fileSize, mime_type: doc.mimeType });
});
