import type { Principal } from '../../core/auth/principal';
import { Conflict } from '../../core/errors';
import type { DownloadFormat } from '../../core/manifests/model';
import { blobs } from '../../infra/blobs';
import { exportFormatOf, storedExport } from './exports';
import { requireBatch } from './tracking';

/** Bodies above this are answered with a redirect to a signed URL of the stored file (Lambda answers at most 6 MB). */
export const inlineBodyBytes = 5 * 1000 * 1000;
export const exportUrlSeconds = 60 * 60;

export type Download =
  | { kind: 'inline'; contentType: string; fileName: string; body: Buffer }
  | { kind: 'redirect'; url: string };

/**
 * The processed manifest (spec 4.3 download), only once processing is 100% complete (else 409
 * `processing_incomplete`, the spec leaving that error open): the finished run's stored file
 * (manifest-exports.ts), inline up to 5 MB, else a redirect to a signed URL of that same file.
 */
export async function downloadManifest(principal: Principal, manifest: string, format: DownloadFormat): Promise<Download> {
  const batch = await requireBatch(principal, manifest);
  if (batch.status !== 'completed' || batch.progress !== 100) {
    throw new Conflict(`Manifest ${batch.manifestNumber} (batch ${batch.batchId}) is ${batch.status} at ${batch.progress}%; results can be downloaded at 100%.`, {
      error: 'processing_incomplete',
      batch_id: batch.batchId,
      status: batch.status,
      progress: batch.progress,
    });
  }
  const base = `manifest-${batch.manifestNumber.replace(/[^\w.-]+/g, '_')}-${batch.batchId}`;
  const exportFormat = exportFormatOf(format);
  const file = await storedExport(batch, exportFormat);
  const fileName = `${base}.${exportFormat}`;
  if (file.bytes <= inlineBodyBytes) return { kind: 'inline', contentType: file.contentType, fileName, body: (await blobs().get(file.key))! };
  return { kind: 'redirect', url: await blobs().downloadUrl(file.key, { expiresInSeconds: exportUrlSeconds, fileName, contentType: file.contentType }) };
}
