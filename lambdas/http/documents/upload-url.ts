import { route } from '../kit/route';
import { presignedUploadAnswer } from '../kit/presigned';
import { startUpload, uploadUrlSeconds } from '#services/documents/documents';
import { DocumentsUploadUrl } from '#catalog/documents';

/** Large files: a presigned POST straight to storage (see docs/partners/documents.md, "Large files"). */
export const handler = route(DocumentsUploadUrl.schemas, async ({ body, principal }) => {
  const { upload, post } = await startUpload(
    principal,
    { documentType: body.document_type, manifestId: body.manifest_id, awbNumber: body.awb_number, metadata: body.metadata },
    { fileName: body.filename, fileSize: body.file_size, checksum: body.checksum },
  );
  return presignedUploadAnswer(upload, post, uploadUrlSeconds, `/api/v1/transport/documents/uploads/${upload.id}/complete`);
});
