import * as v from 'valibot';
import { route } from '../kit/route';
import { created, ok } from '../kit/reply';
import { parseMultipart } from '../kit/multipart';
import { fieldErrors } from '../kit/validate';
import { ValidationFailed, type FieldErrors } from '#core/errors';
import { maxManifestFileBytes } from '#core/manifest-files/files';
import { storeManifestFile, withFileUrl } from '#services/manifest-files/manifest-files';
import { idempotencyKey } from '../kit/idempotency-key';
import { UploadFields } from './schemas';

/** Room for a 40 MB file plus the form around it (in AWS the 6 MB Lambda payload limit comes first). */
export const uploadBodyBytes = maxManifestFileBytes + 64 * 1024;

/** multipart/form-data: `file` plus `courier_code`, optional `manifest_name` and `description`. */
export const handler = route({ bodyMode: 'raw', maxBodyBytes: uploadBodyBytes }, async ({ rawBody, headers, principal }) => {
  const key = idempotencyKey(headers);
  const form = await parseMultipart(rawBody ?? Buffer.alloc(0), headers['content-type'] ?? '', { fileBytes: maxManifestFileBytes });
  const file = form.files.find((f) => f.field === 'file');
  const parsed = v.safeParse(UploadFields, form.fields, { abortPipeEarly: true });
  const errors: FieldErrors = parsed.success ? {} : fieldErrors(parsed.issues);
  if (!file) errors.file = ['A file is required (multipart field "file").'];
  if (!parsed.success || !file) throw new ValidationFailed(errors);
  const fields = parsed.output;
  const { result, replayed } = await storeManifestFile(
    principal,
    { courierCode: fields.courier_code, manifestName: fields.manifest_name, description: fields.description },
    { fileName: file.fileName, bytes: file.data },
    key,
  );
  const view = await withFileUrl(result);
  if (!replayed) return created(view, 'File stored.');
  return { ...ok(view, { status: 201, message: 'File already stored with this Idempotency-Key.' }), headers: { 'Idempotent-Replayed': 'true' } };
});
