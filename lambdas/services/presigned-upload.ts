/**
 * Large files straight to storage, for transport documents and stored manifest files alike: the
 * file is declared, POSTed to storage with a presigned form, then checked against its declaration
 * before the area records it. What differs per area (allowed types, limits, the record it makes)
 * stays with the area's service.
 */
import { randomUUID } from 'node:crypto';
import { Conflict, ValidationFailed } from '#core/errors';
import { sha256Checksum, type FileInspection } from '#core/documents/files';
import { createUpload, type PendingDeliveriesUpload, type PendingManifestFileUpload, type PendingUpload } from '#infra/entities/uploads';
import { blobs } from '#infra/blobs';
import { now } from '#infra/clock';

export const uploadUrlSeconds = 15 * 60;

/** What the area declares; the id and the times are set here. */
type Declared =
  | Omit<PendingUpload, 'id' | 'createdAt' | 'expiresAt'>
  | Omit<PendingManifestFileUpload, 'id' | 'createdAt' | 'expiresAt'>
  | Omit<PendingDeliveriesUpload, 'id' | 'createdAt' | 'expiresAt'>;

/**
 * Step 1: records the declared upload (kept a day if never completed) and answers a presigned POST
 * that storage accepts only for its type and at most its declared size, for 15 minutes.
 */
export async function startPresignedUpload<D extends Declared>(declared: D) {
  const at = now();
  const upload = { ...declared, id: randomUUID(), createdAt: at.toISOString(), expiresAt: Math.floor(at.getTime() / 1000) + 24 * 3600 };
  await createUpload(upload);
  const post = await blobs().presignedUpload(upload.blobKey, { maxBytes: upload.fileSize, contentType: upload.mimeType, expiresInSeconds: uploadUrlSeconds });
  return { upload, post };
}

/**
 * Step 2: what arrived, checked against the declaration (size, content by `inspect`, checksum); a
 * file that does not match is deleted, so the client uploads it again.
 */
export async function receivedFile(
  upload: { blobKey: string; fileName: string; fileSize: number; checksum: string },
  inspect: (fileName: string, bytes: Buffer) => FileInspection,
): Promise<{ bytes: Buffer; mimeType: string; checksum: string }> {
  const notYet = () => new Conflict('The file has not been uploaded yet: POST it to the upload_url first.');
  const size = await blobs().size(upload.blobKey);
  if (size === undefined) throw notYet();
  const reject = async (errors: Record<string, string[]>): Promise<never> => {
    await blobs().delete(upload.blobKey);
    throw new ValidationFailed(errors, 'The uploaded file does not match its declaration; upload it again.');
  };
  // The size is checked before reading the file, so a wrong upload costs no download.
  if (size !== upload.fileSize) await reject({ file_size: [`Declared ${upload.fileSize} bytes, received ${size}.`] });
  const bytes = await blobs().get(upload.blobKey);
  if (!bytes) throw notYet();
  const inspected = inspect(upload.fileName, bytes);
  if (!inspected.ok) return reject({ [inspected.field]: [inspected.message] });
  const checksum = sha256Checksum(bytes);
  if (checksum !== upload.checksum) await reject({ checksum: [`Declared ${upload.checksum}, received ${checksum}.`] });
  return { bytes, mimeType: inspected.mimeType, checksum };
}
