import { route } from '../kit/route';
import { presignedUploadAnswer } from '../kit/presigned';
import { startBulkUpload } from '#services/deliveries/bulk';
import { uploadUrlSeconds } from '#services/presigned-upload';
import { DeliveriesBulkUploadUrl } from '#catalog/deliveries';

/** Declares the CSV or the ZIP of a day's proofs; both are then imported by POST /v1/deliveries/bulk. */
export const handler = route(DeliveriesBulkUploadUrl.schemas, async ({ body, principal }) => {
  const { upload, post } = await startBulkUpload(principal, body.file_kind, { fileName: body.filename, fileSize: body.file_size, checksum: body.checksum });
  return presignedUploadAnswer(upload, post, uploadUrlSeconds, '/api/v1/deliveries/bulk');
});
