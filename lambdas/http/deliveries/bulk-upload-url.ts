import { route } from '../kit/route';
import { created } from '../kit/reply';
import { presignedForm } from '../kit/presigned';
import { startBulkUpload } from '#services/deliveries/bulk';
import { uploadUrlSeconds } from '#services/presigned-upload';
import { DeliveriesBulkUploadUrl } from '#catalog/deliveries';

const declared = (f: { filename: string; file_size: number; checksum: string }) => ({ fileName: f.filename, fileSize: f.file_size, checksum: f.checksum });

/** Declares the CSV and the ZIP of a day's proofs: a presigned POST for each, then POST /v1/deliveries/bulk. */
export const handler = route(DeliveriesBulkUploadUrl.schemas, async ({ body, principal }) => {
  const started = await startBulkUpload(principal, { csv: declared(body.csv), zip: declared(body.zip) });
  const form = ({ upload, post }: (typeof started)['csv']) => presignedForm(upload, post);
  return created(
    { csv: form(started.csv), zip: form(started.zip), expires_in_seconds: uploadUrlSeconds, import_url: '/api/v1/deliveries/bulk' },
    'POST each file to its upload_url with its fields (the file last), then POST both upload ids to import_url.',
  );
});
