/**
 * Recording proofs of delivery (issue 44), one through the API or a day's in bulk. A proof is
 * written once: its file to the proofs' store (never replaced), then its record by a conditional
 * write. The same delivery sent again answers what the first did; another one for an AWB already
 * proven is a 409, and nothing changes.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '#core/auth/principal';
import { Conflict, ValidationFailed, emptyFieldErrors } from '#core/errors';
import { contentHash, deliveredAtProblem, proofEventData, proofKindOf, proofKinds, retainUntil, type DeliveryInput, type ProofRecord } from '#core/deliveries/proof';
import { sanitizeFileName, sha256Checksum } from '#core/documents/files';
import { createProof, getProof } from '#infra/entities/deliveries';
import { getBatches, itemsOfAwb } from '#infra/entities/manifests';
import { proofStore } from '#infra/blobs';
import { now } from '#infra/clock';
import { proofsConfig } from '#shared/proofs-config';
import { publishEvents } from '../publish';

/** The manifest and flight an AWB of the account travelled on: its newest batch that holds it. */
export async function shipmentOf(accountId: number, awbNumber: string): Promise<{ batchId: string; manifestNumber: string; mawbNumber: string } | undefined> {
  const items = await itemsOfAwb(accountId, awbNumber);
  const batches = await getBatches([...new Set(items.map((i) => i.batchId))]);
  const newest = batches.filter((b) => b.accountId === accountId).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  return newest && { batchId: newest.batchId, manifestNumber: newest.manifestNumber, mawbNumber: newest.mawbNumber };
}

/** Where a proof's file is kept: chosen by the service, never by the client. */
function fileKeyOf(accountId: number, awbNumber: string, checksum: string, extension: string): string {
  const awb = createHash('sha256').update(awbNumber).digest('hex').slice(0, 32);
  return `proofs/${accountId}/${awb}/${checksum.slice('sha256:'.length)}.${extension}`;
}

export interface PreparedProof {
  record: ProofRecord;
  bytes: Buffer;
}

/** The record a delivery makes, before anything is written; the file was checked already. */
export function prepareProof(
  accountId: number,
  input: DeliveryInput,
  file: { bytes: Buffer; fileName: string },
  shipment: { batchId: string; manifestNumber: string; mawbNumber: string },
  source: 'api' | 'bulk',
): PreparedProof {
  const kind = proofKindOf(file.bytes);
  if (!kind) throw new ValidationFailed({ file: ['Must be a PNG or JPEG image or a PDF.'] });
  const checksum = sha256Checksum(file.bytes);
  const at = now();
  const record: ProofRecord = {
    accountId,
    awbNumber: input.awb_number,
    ...shipment,
    deliveredAt: new Date(input.delivered_at).toISOString(),
    recipientName: input.recipient_name,
    recipientDni: input.recipient_dni,
    recipientRelation: input.recipient_relation,
    ...(input.latitude !== undefined ? { latitude: input.latitude, longitude: input.longitude } : {}),
    ...(input.address !== undefined ? { address: input.address } : {}),
    fileKey: fileKeyOf(accountId, input.awb_number, checksum, kind === 'jpeg' ? 'jpg' : kind),
    fileName: sanitizeFileName(file.fileName) || `${input.awb_number}.${kind}`,
    mimeType: proofKinds[kind],
    fileSize: file.bytes.length,
    checksum,
    contentHash: contentHash(input, checksum),
    source,
    recordedAt: at.toISOString(),
    retainUntil: retainUntil(at, proofsConfig.retentionYears()),
  };
  return { record, bytes: file.bytes };
}

// 409 `conflict` with the AWB: a new error class would weigh on every bundle (the dashboard's 50 KB).
const differs = (awb: string) => new Conflict(`AWB ${awb} already has a different proof of delivery; a proof is kept as recorded and never replaced.`, { awb_number: awb });

/** What is kept for the AWB already when it is the same delivery; a 409 when it is another. */
async function replayOf(p: ProofRecord): Promise<ProofRecord | undefined> {
  const existing = await getProof(p.accountId, p.awbNumber);
  if (!existing) return undefined;
  if (existing.contentHash !== p.contentHash) throw differs(p.awbNumber);
  return existing;
}

/** Writes one prepared proof: the file once, then the record; 'replayed' when it was kept already. */
export async function keepProof(p: PreparedProof): Promise<{ proof: ProofRecord; replayed: boolean }> {
  const kept = await replayOf(p.record);
  if (kept) return { proof: kept, replayed: true };
  // The file's key holds its checksum: 'exists' is these very bytes, from an earlier try.
  await proofStore().putOnce(p.record.fileKey, p.bytes, p.record.mimeType);
  if ((await createProof(p.record)) === 'created') return { proof: p.record, replayed: false };
  // Another request wrote it meanwhile: the same delivery, or a conflict.
  const raced = await replayOf(p.record);
  if (!raced) throw new Error(`proof of ${p.record.awbNumber}: the conditional write lost but no record is there`);
  return { proof: raced, replayed: true };
}

/** Checks the AWB is one of the caller's shipments; a 422 naming `awb_number` (or the row's) otherwise. */
export async function requireShipment(accountId: number, awbNumber: string, field = 'awb_number') {
  const shipment = await shipmentOf(accountId, awbNumber);
  if (!shipment) {
    const errors = emptyFieldErrors();
    errors[field] = ['Is not an AWB of any manifest of this account.'];
    throw new ValidationFailed(errors);
  }
  return shipment;
}

/** POST /v1/deliveries: one proof. */
export async function recordDelivery(principal: Principal, input: DeliveryInput, file: { bytes: Buffer; fileName: string }) {
  const future = deliveredAtProblem(input.delivered_at, now());
  if (future) throw new ValidationFailed({ delivered_at: [future] });
  const shipment = await requireShipment(principal.accountId, input.awb_number);
  const prepared = prepareProof(principal.accountId, input, file, shipment, 'api');
  const { proof, replayed } = await keepProof(prepared);
  if (!replayed) await publishEvents(proof.accountId, [{ type: 'delivery.recorded', data: proofEventData(proof) }]);
  return { proof, replayed };
}
