/**
 * A proof of delivery (issue 44): who received an AWB, when, where, and the signature or photo
 * that shows it. RG ARCA 5631/2025, amending the Anexo of RG ARCA 5608/2024, asks the courier to
 * keep the digitised proofs for five years (docs/partners/deliveries.md).
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { safeIdentifier } from '../identifier';

/** What a proof's file may be, by its bytes: a photo or scan (PNG, JPEG) or a PDF. */
export const proofKinds = { png: 'image/png', jpeg: 'image/jpeg', pdf: 'application/pdf' } as const;
export type ProofKind = keyof typeof proofKinds;

/**
 * One file of a proof: 4 MB, a phone's photo or a signed PDF page. Sent in base64 it stays under
 * the 6 MB a Lambda's request may carry.
 */
export const maxProofFileBytes = 4 * 1024 * 1024;

const text = (max: number) =>
  v.pipe(
    v.string('Must be a string.'),
    v.trim(),
    v.nonEmpty('Must not be empty.'),
    v.maxLength(max, `Must be at most ${max} characters.`),
    v.regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain control characters.'),
  );

/** An instant with its zone (`Z` or an offset), as ISO 8601 writes it. */
const instant = v.pipe(
  v.string('Must be a string.'),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/, 'Must be an ISO 8601 date and time with its zone, e.g. 2026-12-07T14:30:00-03:00.'),
  v.check((s) => Number.isFinite(Date.parse(s)), 'Is not a real date and time.'),
);

/** The recorded fields of a delivery, as a client sends them (the API's body and each CSV row). */
export const deliveryFields = {
  awb_number: v.pipe(v.string('Must be a string.'), v.trim(), v.nonEmpty('Must not be empty.'), v.maxLength(50, 'Must be at most 50 characters.'), safeIdentifier),
  delivered_at: instant,
  recipient_name: text(200),
  recipient_dni: v.pipe(v.string('Must be a string.'), v.trim(), v.regex(/^\d{7,8}$/, "Must be the recipient's DNI: 7 or 8 digits, without dots.")),
  recipient_relation: text(100),
  latitude: v.optional(v.pipe(v.number('Must be a number.'), v.minValue(-90, 'Must be at least -90.'), v.maxValue(90, 'Must be at most 90.'))),
  longitude: v.optional(v.pipe(v.number('Must be a number.'), v.minValue(-180, 'Must be at least -180.'), v.maxValue(180, 'Must be at most 180.'))),
  address: v.optional(text(255)),
};

/** The two coordinates go together. */
export const locationPairedMessage = 'latitude and longitude go together: send both or neither.';
export const locationPaired = (d: { latitude?: number; longitude?: number }) => (d.latitude === undefined) === (d.longitude === undefined);

export const DeliveryFields = v.pipe(
  v.object(deliveryFields),
  v.forward(v.partialCheck([['latitude'], ['longitude']], locationPaired, locationPairedMessage), ['longitude']),
);
export type DeliveryInput = v.InferOutput<typeof DeliveryFields>;

/** A proof as it is kept: one record per account and AWB, never changed once written. */
export interface ProofRecord {
  accountId: number;
  awbNumber: string;
  manifestNumber: string;
  mawbNumber: string;
  batchId: string;
  deliveredAt: string;
  recipientName: string;
  recipientDni: string;
  recipientRelation: string;
  latitude?: number;
  longitude?: number;
  address?: string;
  fileKey: string;
  fileName: string;
  mimeType: string;
  fileSize: number;
  checksum: string;
  /** What makes two requests the same delivery: see `contentHash`. */
  contentHash: string;
  source: 'api' | 'bulk';
  recordedAt: string;
  /** The day the proof may be deleted from: recorded + the retention (5 years by default). */
  retainUntil: string;
}

/** The proof's file kind by its first bytes, whatever its name says; undefined for anything else. */
export function proofKindOf(bytes: Uint8Array): ProofKind | undefined {
  const starts = (sig: number[]) => bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'pdf';
  return undefined;
}

/** Why a file cannot be a proof, or undefined when it can. */
export function proofFileProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length === 0) return 'The file is empty.';
  if (bytes.length > maxProofFileBytes) return `Must be at most ${maxProofFileBytes / 1024 / 1024} MB.`;
  if (!proofKindOf(bytes)) return 'Must be a PNG or JPEG image or a PDF (checked by its content, not its name).';
  return undefined;
}

/**
 * The delivery's identity for idempotency: the same AWB, instant, recipient, place and file bytes
 * make the same proof, so a retried request answers what the first one did; anything else for an
 * AWB already proven is a conflict.
 */
export function contentHash(input: DeliveryInput, checksum: string): string {
  const canonical = [
    input.awb_number,
    new Date(input.delivered_at).toISOString(),
    input.recipient_name,
    input.recipient_dni,
    input.recipient_relation,
    input.latitude ?? '',
    input.longitude ?? '',
    input.address ?? '',
    checksum,
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** A delivery is recorded after it happened: `delivered_at` may be at most 10 minutes ahead of the service's clock (phones' clocks drift). */
export function deliveredAtProblem(deliveredAt: string, now: Date): string | undefined {
  return Date.parse(deliveredAt) > now.getTime() + 10 * 60_000 ? 'Is in the future: a proof is recorded once the delivery happened.' : undefined;
}

/** The day a proof recorded `at` may go, `years` later (29 February moves to 1 March). */
export function retainUntil(at: Date, years: number): string {
  const d = new Date(at.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString();
}

/** A proof as the API answers it. */
export function proofView(p: ProofRecord, downloadUrl?: string) {
  return {
    awb_number: p.awbNumber,
    account_id: p.accountId,
    manifest_id: p.manifestNumber,
    mawb_number: p.mawbNumber,
    batch_id: p.batchId,
    delivered_at: p.deliveredAt,
    recipient: { name: p.recipientName, dni: p.recipientDni, relation: p.recipientRelation },
    location: p.latitude === undefined && p.address === undefined ? null : { latitude: p.latitude ?? null, longitude: p.longitude ?? null, address: p.address ?? null },
    file: { file_name: p.fileName, mime_type: p.mimeType, file_size: p.fileSize, checksum: p.checksum, ...(downloadUrl ? { download_url: downloadUrl } : {}) },
    source: p.source,
    recorded_at: p.recordedAt,
    retain_until: p.retainUntil,
  };
}

/** The `delivery.recorded` event's data. */
export function proofEventData(p: ProofRecord) {
  const { file, ...rest } = proofView(p);
  return { ...rest, file: { file_name: file.file_name, mime_type: file.mime_type, file_size: file.file_size, checksum: file.checksum } };
}

/** A proof's entry in a flight's ZIP: by account and AWB, in characters every unzip tool takes. */
export function archiveEntryName(p: ProofRecord): string {
  const safe = p.awbNumber.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  const ext = p.mimeType === 'application/pdf' ? 'pdf' : p.mimeType === 'image/png' ? 'png' : 'jpg';
  return `${p.accountId}/${safe}-${p.checksum.slice('sha256:'.length, 'sha256:'.length + 8)}.${ext}`;
}

/** The columns of a flight ZIP's `index.csv`, one row per proof. */
export const archiveIndexColumns = [
  'account_id', 'awb_number', 'manifest_id', 'mawb_number', 'delivered_at', 'recipient_name', 'recipient_dni', 'recipient_relation',
  'latitude', 'longitude', 'address', 'file', 'checksum', 'recorded_at', 'retain_until',
] as const;

export function archiveIndexRow(p: ProofRecord): (string | number | null)[] {
  return [
    p.accountId, p.awbNumber, p.manifestNumber, p.mawbNumber, p.deliveredAt, p.recipientName, p.recipientDni, p.recipientRelation,
    p.latitude ?? null, p.longitude ?? null, p.address ?? null, archiveEntryName(p), p.checksum, p.recordedAt, p.retainUntil,
  ];
}
