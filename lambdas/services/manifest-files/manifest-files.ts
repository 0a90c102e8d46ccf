/**
 * Stored manifest files (spec 4.7): the rules of core/manifest-files joined with the table and
 * the blob store. Handlers call these; nothing here knows about HTTP.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '#core/auth/principal';
import { NotFound, PayloadTooLarge, ValidationFailed } from '#core/errors';
import { extensionOf, humanSize, sanitizeFileName, sha256Checksum } from '#core/documents/files';
import { inspectManifestFile, isManifestFileExtension, manifestFileExtensions, manifestFileMimeTypes, maxManifestFileBytes } from '#core/manifest-files/files';
import { fileUrlMinutes, type ManifestFileRecord } from '#core/manifest-files/model';
import { manifestFileView } from '#core/manifest-files/views';
import { getManifestFile, listManifestFiles, putManifestFile } from '#infra/entities/manifest-files';
import { getUpload } from '#infra/entities/uploads';
import { nextId } from '#infra/entities/counters';
import { blobs } from '#infra/blobs';
import { now } from '#infra/clock';
import { once } from '../idempotency';
import { receivedFile, startPresignedUpload } from '../presigned-upload';
import type { IncomingFile } from '../documents/documents';

/** What the caller says about the file: `courierCode` already upper-cased by the schema. */
export interface ManifestFileFields {
  courierCode: string;
  manifestName?: string;
  description?: string;
}

export { uploadUrlSeconds } from '../presigned-upload';
const tooLarge = () => new PayloadTooLarge(`The file is larger than ${humanSize(maxManifestFileBytes)}.`);

/** The object key, chosen by the service: `manifest-files/<account>/<uuid>.<ext>`. */
export function blobKeyFor(accountId: number, extension: string): string {
  return `manifest-files/${accountId}/${randomUUID()}.${extension}`;
}

/** The record of 2.8 with a `file_url` signed for 60 minutes. */
export async function withFileUrl(record: ManifestFileRecord) {
  const url = await blobs().downloadUrl(record.blobKey, { expiresInSeconds: fileUrlMinutes * 60, fileName: record.fileName, contentType: record.mimeType });
  return manifestFileView(record, url);
}

/** A file this account stored (the replay of an Idempotency-Key reads it back). */
async function ownFile(principal: Principal, id: string): Promise<ManifestFileRecord | undefined> {
  const record = await getManifestFile(Number(id));
  return record && record.accountId === principal.accountId ? record : undefined;
}

const kept = (principal: Principal) => ({ noun: 'file', idOf: (r: ManifestFileRecord) => String(r.id), load: (id: string) => ownFile(principal, id) });

function newRecord(
  principal: Principal,
  fields: ManifestFileFields,
  file: { fileName: string; mimeType: string; checksum: string; size: number },
  blobKey: string,
  id: number,
): ManifestFileRecord {
  return {
    id,
    accountId: principal.accountId,
    courierCode: fields.courierCode,
    fileName: file.fileName,
    fileSize: file.size,
    mimeType: file.mimeType,
    checksum: file.checksum,
    blobKey,
    manifestName: fields.manifestName,
    description: fields.description,
    uploadedBy: principal.tokenId,
    uploadedAt: now().toISOString(),
  };
}

/**
 * Direct upload: check the file (type by content, JSON parsed in full), store it under a key the
 * service chooses, record it. Retry-safe with an Idempotency-Key.
 */
export async function storeManifestFile(principal: Principal, fields: ManifestFileFields, file: IncomingFile, idempotencyKey?: string) {
  if (file.bytes.length > maxManifestFileBytes) throw tooLarge();
  const fileName = sanitizeFileName(file.fileName);
  const inspected = inspectManifestFile(fileName, file.bytes, 'parse');
  if (!inspected.ok) throw new ValidationFailed({ [inspected.field]: [inspected.message] });
  const checked = { fileName, mimeType: inspected.mimeType, extension: inspected.extension, checksum: sha256Checksum(file.bytes) };
  return once(
    principal,
    'manifest-files.upload',
    idempotencyKey,
    { fields, file: checked },
    async () => {
      const blobKey = blobKeyFor(principal.accountId, checked.extension);
      await blobs().put(blobKey, file.bytes, checked.mimeType);
      try {
        const record = newRecord(principal, fields, { ...checked, size: file.bytes.length }, blobKey, await nextId('manifestFile'));
        await putManifestFile(record);
        return record;
      } catch (err) {
        await blobs().delete(blobKey).catch(() => undefined);
        throw err;
      }
    },
    kept(principal),
  );
}

/** Large files, step 1: declare the file, get a presigned POST for it (services/presigned-upload). */
export async function startManifestFileUpload(
  principal: Principal,
  fields: ManifestFileFields,
  declared: { fileName: string; fileSize: number; checksum: string },
) {
  const fileName = sanitizeFileName(declared.fileName);
  const extension = extensionOf(fileName);
  if (!isManifestFileExtension(extension)) throw new ValidationFailed({ file_name: [`Allowed types: ${manifestFileExtensions.join(', ')}.`] });
  if (declared.fileSize > maxManifestFileBytes) throw tooLarge();
  return startPresignedUpload({
    purpose: 'manifest-file',
    accountId: principal.accountId,
    blobKey: blobKeyFor(principal.accountId, extension),
    fileName,
    fileSize: declared.fileSize,
    checksum: declared.checksum,
    mimeType: manifestFileMimeTypes[extension],
    courierCode: fields.courierCode,
    manifestName: fields.manifestName,
    description: fields.description,
  });
}

/**
 * Large files, step 2: check what arrived (content by magic bytes; JSON for its shape, UTF-8 and
 * an object or an array, not parsed in full) and register it as the same record a direct upload
 * makes. Completing twice returns the same file.
 */
export async function completeManifestFileUpload(principal: Principal, uploadId: string) {
  const upload = await getUpload(uploadId, 'manifest-file');
  if (!upload || upload.accountId !== principal.accountId) throw new NotFound('Upload not found.');
  return once(
    principal,
    'manifest-files.complete',
    uploadId,
    { uploadId },
    async () => {
      const file = await receivedFile(upload, (fileName, bytes) => inspectManifestFile(fileName, bytes, 'shape'));
      const record = newRecord(
        principal,
        { courierCode: upload.courierCode, manifestName: upload.manifestName, description: upload.description },
        { fileName: upload.fileName, mimeType: file.mimeType, checksum: file.checksum, size: file.bytes.length },
        upload.blobKey,
        await nextId('manifestFile'),
      );
      await putManifestFile(record);
      return record;
    },
    kept(principal),
  );
}

/** The caller's account's stored files, newest first; only those of one carrier code when given. */
export async function listStoredFiles(principal: Principal, courierCode?: string): Promise<ManifestFileRecord[]> {
  return listManifestFiles(principal.accountId, courierCode);
}
