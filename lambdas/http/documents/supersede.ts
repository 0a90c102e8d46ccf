import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { supersedeDocument } from '#services/documents/documents';
import { SupersedeFields } from './schemas';
import { idempotencyKey, readUpload } from './files-in';
import { uploadBodyBytes } from './upload';
import { DocumentsSupersede } from '#catalog/documents';

export const handler = route({ params: DocumentsSupersede.schemas.params, bodyMode: 'raw', maxBodyBytes: uploadBodyBytes }, async ({ params, rawBody, headers, principal }) => {
  const key = idempotencyKey(headers);
  const { fields, file } = await readUpload(rawBody, headers['content-type'], { fields: SupersedeFields, json: DocumentsSupersede.schemas.body });
  const { doc } = await supersedeDocument(principal, params.id, file, fields.reason, key);
  return ok(
    {
      new_document: { id: doc.id, file_name: doc.fileName, state: doc.state, version: doc.version },
      superseded_document: { id: params.id, state: 'superseded', superseded_by: doc.id },
    },
    { status: 201, message: `Document superseded by version ${doc.version}.` },
  );
});
