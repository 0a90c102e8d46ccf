import type { Principal } from '#core/auth/principal';
import { Conflict } from '#core/errors';
import type { DownloadFormat } from '#core/manifests/model';
import type { DownloadLang } from '#core/manifests/product-table';
import { blobs } from '#infra/blobs';
import { compressible, exportFormatOf, storedCompressedExport, storedExport } from './exports';
import { requireBatch } from './tracking';

/** Bodies above this are answered with a redirect to a signed URL of the stored file (Lambda answers at most 6 MB). */
export const inlineBodyBytes = 5 * 1000 * 1000;
/** A compressed body goes out base64 in Lambda's answer (4/3 larger): above this, the redirect. */
export const inlineCompressedBytes = 4 * 1000 * 1000;
export const exportUrlSeconds = 60 * 60;

export type Download =
  | { kind: 'inline'; contentType: string; fileName: string; body: Buffer; contentEncoding?: 'gzip' }
  | { kind: 'redirect'; url: string; contentEncoding?: 'gzip' };

/**
 * The processed manifest (spec 4.3 download), only once processing is 100% complete (else 409
 * `processing_incomplete`, the spec leaving that error open): the finished run's stored file
 * (manifest-exports.ts), inline up to 5 MB, else a redirect to a signed URL of that same file.
 * `lang=es` names the csv's and the xlsx's columns and sheets in Spanish (issue 40; English by default,
 * the API's field names). A caller that accepts gzip gets a text format's compressed copy (`Content-Encoding: gzip`),
 * inline up to 4 MB compressed, else by a signed URL that serves it with that header.
 */
export async function downloadManifest(principal: Principal, manifest: string, format: DownloadFormat, opts: { gzip?: boolean; lang?: DownloadLang } = {}): Promise<Download> {
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
  const gzip = opts.gzip === true && compressible(exportFormat);
  const lang = opts.lang ?? 'en';
  const file = gzip ? await storedCompressedExport(batch, exportFormat, lang) : await storedExport(batch, exportFormat, lang);
  // The name of what the client ends with: the compressed copy is decoded as it arrives.
  const fileName = `${base}${lang === 'es' && (exportFormat === 'csv' || exportFormat === 'xlsx') ? '.es' : ''}.${exportFormat}`;
  const { contentEncoding } = file;
  if (file.bytes <= (gzip ? inlineCompressedBytes : inlineBodyBytes)) {
    return { kind: 'inline', contentType: file.contentType, fileName, body: (await blobs().get(file.key))!, contentEncoding };
  }
  const url = await blobs().downloadUrl(file.key, { expiresInSeconds: exportUrlSeconds, fileName, contentType: file.contentType, contentEncoding });
  return { kind: 'redirect', url, contentEncoding };
}
