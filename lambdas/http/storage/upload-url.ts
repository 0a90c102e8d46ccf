import { route } from '../kit/route';
import { created } from '../kit/reply';
import { startManifestFileUpload, uploadUrlSeconds } from '../../services/manifest-files';
import { UploadUrlBody } from './schemas';

/** Large files: a presigned POST straight to storage (see docs/manifest-storage.md). */
export const handler = route({ body: UploadUrlBody }, async ({ body, principal }) => {
  const { upload, post } = await startManifestFileUpload(
    principal,
    { courierCode: body.courier_code, manifestName: body.manifest_name, description: body.description },
    { fileName: body.file_name, fileSize: body.file_size, checksum: body.checksum },
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
      complete_url: `/api/v1/manifests/storage/uploads/${upload.id}/complete`,
    },
    'POST the file to upload_url with these fields (file last), then call complete_url.',
  );
});
