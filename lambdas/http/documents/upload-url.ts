import { route } from '../kit/route';
import { created } from '../kit/reply';
import { startUpload, uploadUrlSeconds } from '../../services/documents';
import { UploadUrlBody } from './schemas';

/** Large files: a presigned POST straight to storage (see the README's "large files"). */
export const handler = route({ body: UploadUrlBody }, async ({ body, principal }) => {
  const { upload, post } = await startUpload(
    principal,
    { documentType: body.document_type, manifestId: body.manifest_id, awbNumber: body.awb_number, metadata: body.metadata },
    { fileName: body.filename, fileSize: body.file_size, checksum: body.checksum },
  );
  return created(
    {
      upload_id: upload.id,
      upload_url: post.url,
      method: 'POST',
      fields: post.fields,
      file_field: 'file',
      max_bytes: upload.fileSize,
      content_type: upload.mimeType,
      expires_in_seconds: uploadUrlSeconds,
      complete_url: `/api/v1/transport/documents/uploads/${upload.id}/complete`,
    },
    'POST the file to upload_url with these fields (file last), then call complete_url.',
  );
});
