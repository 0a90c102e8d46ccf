import { route } from '../kit/route';
import { presignedUploadAnswer } from '../kit/presigned';
import { startManifestFileUpload, uploadUrlSeconds } from '#services/manifest-files/manifest-files';
import { ManifestStorageUploadUrl } from '#catalog/manifest-files';

/** Large files: a presigned POST straight to storage (see docs/partners/manifests.md, "Stored manifest files"). */
export const handler = route(ManifestStorageUploadUrl.schemas, async ({ body, principal }) => {
  const { upload, post } = await startManifestFileUpload(
    principal,
    { courierCode: body.courier_code, manifestName: body.manifest_name, description: body.description },
    { fileName: body.file_name, fileSize: body.file_size, checksum: body.checksum },
  );
  return presignedUploadAnswer(upload, post, uploadUrlSeconds, `/api/v1/manifests/storage/uploads/${upload.id}/complete`);
});
