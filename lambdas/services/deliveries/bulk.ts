/**
 * A day's proofs of delivery in bulk (issue 44): a CSV and a ZIP of the files, each declared and
 * POSTed straight to storage with a presigned form, then imported in one call. Everything is
 * checked before anything is written (every row, every entry, every file's bytes, every AWB), so a
 * bad row refuses the whole import, named. The writes are each proof's own idempotent write, so a
 * retried import (after a timeout) finishes what the first one started and answers the same.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '#core/auth/principal';
import { NotFound, PayloadTooLarge, ValidationFailed, emptyFieldErrors } from '#core/errors';
import { maxBulkCsvBytes, maxBulkZipBytes, matchFiles, readBulkCsv, readBulkZip } from '#core/deliveries/bulk';
import { deliveredAtProblem, proofEventData, type ProofRecord } from '#core/deliveries/proof';
import { getProof } from '#infra/entities/deliveries';
import { getUpload, type PendingDeliveriesUpload } from '#infra/entities/uploads';
import { now } from '#infra/clock';
import { mapConcurrent } from '#shared/concurrency';
import { receivedFile, startPresignedUpload } from '../presigned-upload';
import { publishEvents } from '../publish';
import { keepProof, prepareProof, shipmentOf, type PreparedProof } from './record';

const kinds = {
  csv: { mimeType: 'text/csv', maxBytes: maxBulkCsvBytes },
  zip: { mimeType: 'application/zip', maxBytes: maxBulkZipBytes },
} as const;

type Declared = { fileName: string; fileSize: number; checksum: string };

/**
 * Step 1: declares both files and answers a presigned POST for each. Both sizes are checked
 * before either declaration is written, so a refused request leaves nothing behind.
 */
export async function startBulkUpload(principal: Principal, files: Record<'csv' | 'zip', Declared>) {
  for (const fileKind of ['csv', 'zip'] as const) {
    const max = kinds[fileKind].maxBytes;
    if (files[fileKind].fileSize > max) throw new PayloadTooLarge(`The ${fileKind.toUpperCase()} (${fileKind}.file_size) may be at most ${max / 1024 / 1024} MB.`);
  }
  const start = (fileKind: 'csv' | 'zip') =>
    startPresignedUpload({
      purpose: 'deliveries',
      fileKind,
      accountId: principal.accountId,
      blobKey: `uploads/deliveries/${principal.accountId}/${randomUUID()}.${fileKind}`,
      fileName: files[fileKind].fileName,
      fileSize: files[fileKind].fileSize,
      checksum: files[fileKind].checksum,
      mimeType: kinds[fileKind].mimeType,
    });
  return { csv: await start('csv'), zip: await start('zip') };
}

async function uploadOf(principal: Principal, id: string, fileKind: 'csv' | 'zip', field: string): Promise<PendingDeliveriesUpload> {
  const upload = await getUpload(id, 'deliveries');
  // Another account's upload, or another kind, reads as missing.
  if (!upload || upload.accountId !== principal.accountId) throw new NotFound(`No upload ${id} (${field}).`);
  if (upload.fileKind !== fileKind) throw new ValidationFailed({ [field]: [`Is the upload of a ${upload.fileKind.toUpperCase()}, not a ${fileKind.toUpperCase()}.`] });
  return upload;
}

/** What a bulk import answers: the day and every AWB of the CSV with its proof, in the CSV's order. */
export interface BulkResult {
  day: string;
  proofs: ProofRecord[];
  recorded: number;
  replayed: number;
}

/** Step 2: checks the CSV and the ZIP whole, then keeps every proof; nothing is written unless all is right. */
export async function importDay(principal: Principal, day: string, ids: { csvUploadId: string; zipUploadId: string }): Promise<BulkResult> {
  const csvUpload = await uploadOf(principal, ids.csvUploadId, 'csv', 'csv_upload_id');
  const zipUpload = await uploadOf(principal, ids.zipUploadId, 'zip', 'zip_upload_id');
  const csv = await receivedFile(csvUpload, () => ({ ok: true, mimeType: 'text/csv', extension: 'csv' }));
  const zip = await receivedFile(zipUpload, (_name, bytes) =>
    bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ? { ok: true, mimeType: 'application/zip', extension: 'zip' } : { ok: false, field: 'file', message: 'The file is not a ZIP archive.' },
  );

  const read = readBulkCsv(csv.bytes, day);
  if ('errors' in read) throw new ValidationFailed(read.errors, 'The CSV was refused whole: correct the rows named and send the import again.');
  const archive = readBulkZip(zip.bytes);
  if ('errors' in archive) throw new ValidationFailed(archive.errors, 'The ZIP was refused: nothing was recorded.');
  const matched = matchFiles(read.rows, archive.files);
  if (matched.errors) throw new ValidationFailed(matched.errors, 'The import was refused whole: correct the files named and send it again.');

  // Every AWB is the account's, and none already has another proof, before the first write.
  const errors = emptyFieldErrors();
  for (const r of read.rows) {
    const future = deliveredAtProblem(r.input.delivered_at, now());
    if (future) errors[`rows[${r.row}].delivered_at`] = [future];
  }
  if (Object.keys(errors).length) throw new ValidationFailed(errors, 'The CSV was refused whole: correct the rows named and send the import again.');
  const prepared: PreparedProof[] = [];
  await mapConcurrent(read.rows, 8, async (r) => {
    const shipment = await shipmentOf(principal.accountId, r.input.awb_number);
    if (!shipment) return void (errors[`rows[${r.row}].awb_number`] = ['Is not an AWB of any manifest of this account.']);
    const p = prepareProof(principal.accountId, r.input, { bytes: Buffer.from(archive.files.get(r.file)!), fileName: r.file.split('/').pop()! }, shipment, 'bulk');
    const existing = await getProof(principal.accountId, r.input.awb_number);
    if (existing && existing.contentHash !== p.record.contentHash) errors[`rows[${r.row}].awb_number`] = ['Already has a different proof of delivery; a proof is never replaced.'];
    prepared[r.row - 1] = p;
  });
  if (Object.keys(errors).length) throw new ValidationFailed(errors, 'The import was refused whole: nothing was recorded.');

  const kept = await mapConcurrent(prepared, 8, (p) => keepProof(p));
  const fresh = kept.filter((k) => !k.replayed).map((k) => k.proof);
  await publishEvents(principal.accountId, fresh.map((p) => ({ type: 'delivery.recorded', data: proofEventData(p) })));
  return { day, proofs: kept.map((k) => k.proof), recorded: fresh.length, replayed: kept.length - fresh.length };
}
