import { route } from '../kit/route';
import { created, ok } from '../kit/reply';
import { documentView } from '#core/documents/views';
import { uploadDocument } from '#services/documents/documents';
import { UploadFields } from './schemas';
import { DocumentsUpload } from '#catalog/documents';
import { idempotencyKey, readUpload } from './files-in';

/** Room for a 10 MB file in base64 plus the form around it; the file itself is checked at 10 MB. */
export const uploadBodyBytes = Math.ceil((10 * 1024 * 1024 * 4) / 3) + 64 * 1024;

export const handler = route({ bodyMode: 'raw', maxBodyBytes: uploadBodyBytes }, async ({ rawBody, headers, principal }) => {
  const key = idempotencyKey(headers);
  const { fields, file } = await readUpload(rawBody, headers['content-type'], { fields: UploadFields, json: DocumentsUpload.schemas.body });
  const { doc, replayed } = await uploadDocument(
    principal,
    { documentType: fields.document_type, manifestId: fields.manifest_id, awbNumber: fields.awb_number, metadata: fields.metadata },
    file,
    key,
  );
  const reply = replayed
    ? ok(documentView(doc), { status: 201, message: 'Document already uploaded with this Idempotency-Key.' })
    : created(documentView(doc), 'Document uploaded.');
  return replayed ? { ...reply, headers: { 'Idempotent-Replayed': 'true' } } : reply;
});
