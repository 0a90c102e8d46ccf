import { route } from '../kit/route';
import { created, ok } from '../kit/reply';
import { completeManifestFileUpload, withFileUrl } from '#services/manifest-files/manifest-files';
import { ManifestStorageUploadComplete } from '#catalog/manifest-files';

export const handler = route(ManifestStorageUploadComplete.schemas, async ({ params, principal }) => {
  const { result, replayed } = await completeManifestFileUpload(principal, params.uploadId);
  const view = await withFileUrl(result);
  return replayed ? ok(view, { status: 201, message: 'Upload already completed.' }) : created(view, 'File stored.');
});
