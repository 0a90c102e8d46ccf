import { createHash } from 'node:crypto';
import { awbOf, type ManifestItem } from './submission';

/**
 * Item identity in update mode (spec 4.4 rules 4 and 5, decisions of 3.5).
 *
 * The hash covers 22 fields, named as the spec names them, each taken from one client item field
 * (spec 2.5) and normalized. Broker-owned fields (regime, channel, calculation results) are never
 * inputs here, so re-classifying or re-calculating a record can never turn a resend into an UPDATE.
 */

export const hashedFields = [
  'awb_number',
  'box_number',
  'sender',
  'consignee',
  'tax_id',
  'consignee_address1',
  'consignee_city',
  'consignee_province',
  'consignee_zip',
  'consignee_phone',
  'consignee_email',
  'product_description',
  'notes',
  'article_url',
  'category_id',
  'country_of_manufacture',
  'weight',
  'quantity',
  'packages',
  'unit_value',
  'total_value',
  'hts_code',
] as const;

export type HashedField = (typeof hashedFields)[number];

/** How each hashed field is read from a client item; data, so docs/partners/manifests.md can print it. */
export const clientToHashedField: readonly { hashed: HashedField; from: string; note: string }[] = [
  { hashed: 'awb_number', from: 'awbNumber, else trackingNumber', note: 'awbNumber wins when both are sent; trimmed' },
  { hashed: 'box_number', from: 'boxNumber', note: 'trimmed' },
  { hashed: 'sender', from: 'shipperName', note: 'trimmed' },
  { hashed: 'consignee', from: 'consigneeName', note: 'trimmed' },
  { hashed: 'tax_id', from: 'consigneeIdNumber', note: 'trimmed (digits only by validation)' },
  { hashed: 'consignee_address1', from: 'consigneeAddress', note: 'trimmed' },
  { hashed: 'consignee_city', from: 'consigneeCity', note: 'trimmed' },
  { hashed: 'consignee_province', from: 'consigneeProvince', note: 'trimmed; validation fills in Buenos Aires when omitted' },
  { hashed: 'consignee_zip', from: 'consigneePostalCode', note: 'trimmed' },
  { hashed: 'consignee_phone', from: 'consigneePhoneNumber', note: 'trimmed' },
  { hashed: 'consignee_email', from: 'consigneeEmail', note: 'trimmed, lower-cased' },
  { hashed: 'product_description', from: 'itemDescription, else itemName', note: 'trimmed; itemName only when there is no description' },
  // The spec's `notes` has no client field of that name; customerName is the free-text item field
  // nearest to it (the spec hashes no other client field it could stand for).
  { hashed: 'notes', from: 'customerName', note: 'trimmed; the spec names no client field for notes, customerName is the nearest free-text field' },
  { hashed: 'article_url', from: 'productLink', note: 'trimmed' },
  { hashed: 'category_id', from: 'Category', note: 'trimmed' },
  { hashed: 'country_of_manufacture', from: 'originCountry', note: 'trimmed, upper-cased' },
  { hashed: 'weight', from: 'totalWeightKg', note: 'decimal, 4 places' },
  { hashed: 'quantity', from: 'amountOfItems', note: 'integer' },
  { hashed: 'packages', from: 'amountOfPackages', note: 'integer' },
  { hashed: 'unit_value', from: 'fobValueUsd / amountOfItems', note: 'decimal, 4 places; fobValueUsd itself when amountOfItems is absent or 0' },
  { hashed: 'total_value', from: 'fobValueUsd', note: 'decimal, 4 places' },
  { hashed: 'hts_code', from: 'hsCode', note: 'digits only' },
];

/** What identity reads from an item: the validated item, or any object with the same fields. */
export type HashableItem = { [K in keyof ManifestItem]?: ManifestItem[K] | null };

export type NormalizedFields = Record<HashedField, string | null>;

const str = (s: string | null | undefined): string | null => {
  if (typeof s !== 'string') return null;
  const t = s.trim();
  return t === '' ? null : t;
};

/** A number (or decimal text) as an exact scaled integer: value = mant / 10^scale. */
function toScaled(x: number | string | null | undefined): { mant: bigint; scale: number } | null {
  if (x === null || x === undefined) return null;
  if (typeof x === 'number' && !Number.isFinite(x)) return null;
  // String(number) gives the shortest text that reads back as the same double: the decimal the client wrote.
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(String(x).trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const [, sign, whole, frac = '', exp = '0'] = m;
  const mant = BigInt((sign === '-' ? '-' : '') + (whole + frac || '0'));
  return { mant, scale: frac.length - Number(exp) };
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** num / den rounded half away from zero (den > 0). */
function divRound(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  let q = a / den;
  if ((a % den) * 2n >= den) q += 1n;
  return neg ? -q : q;
}

/** A scaled integer with 4 implied decimals as text: 125000n -> '12.5000'. */
function format4(q: bigint): string {
  const neg = q < 0n;
  const digits = (neg ? -q : q).toString().padStart(5, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -4)}.${digits.slice(-4)}`;
}

/** (mant / 10^scale) / divisor to 4 places, computed on the decimal digits (no binary float drift). */
function quotient4(v: { mant: bigint; scale: number }, divisor: bigint): string {
  const num = v.scale <= 4 ? v.mant * pow10(4 - v.scale) : v.mant;
  const den = (v.scale <= 4 ? 1n : pow10(v.scale - 4)) * divisor;
  return format4(divRound(num, den));
}

/** A decimal to 4 places as text, rounded half away from zero: 1.00005 -> '1.0001', 12.5 -> '12.5000'. */
export function decimal4(x: number | string | null | undefined): string | null {
  const v = toScaled(x);
  return v ? quotient4(v, 1n) : null;
}

const integerText = (x: number | null | undefined): string | null =>
  typeof x === 'number' && Number.isFinite(x) ? (Number.isInteger(x) ? BigInt(x).toString() : decimal4(x)) : null;

const digitsOnly = (s: string | null | undefined): string | null => {
  const d = typeof s === 'string' ? s.replace(/\D/g, '') : '';
  return d === '' ? null : d;
};

function unitValue(item: HashableItem): string | null {
  const fob = toScaled(item.fobValueUsd);
  if (!fob) return null;
  const qty = item.amountOfItems;
  if (typeof qty === 'number' && Number.isInteger(qty) && qty > 0) return quotient4(fob, BigInt(qty));
  return quotient4(fob, 1n);
}

/** The 22 hashed fields of spec 4.4 rule 5, normalized, in the spec's order; absent -> null. */
export function normalizedFields(item: HashableItem): NormalizedFields {
  return {
    awb_number: str(awbOf(item)),
    box_number: str(item.boxNumber),
    sender: str(item.shipperName),
    consignee: str(item.consigneeName),
    tax_id: str(item.consigneeIdNumber),
    consignee_address1: str(item.consigneeAddress),
    consignee_city: str(item.consigneeCity),
    consignee_province: str(item.consigneeProvince),
    consignee_zip: str(item.consigneePostalCode),
    consignee_phone: str(item.consigneePhoneNumber),
    consignee_email: str(item.consigneeEmail)?.toLowerCase() ?? null,
    product_description: str(item.itemDescription) ?? str(item.itemName),
    notes: str(item.customerName),
    article_url: str(item.productLink),
    category_id: str(item.Category),
    country_of_manufacture: str(item.originCountry)?.toUpperCase() ?? null,
    weight: decimal4(item.totalWeightKg),
    quantity: integerText(item.amountOfItems),
    packages: integerText(item.amountOfPackages),
    unit_value: unitValue(item),
    total_value: decimal4(item.fobValueUsd),
    hts_code: digitsOnly(item.hsCode),
  };
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** sha256 (hex) of the JSON of the normalized fields; the key order is fixed by `normalizedFields`. */
export function payloadHash(item: HashableItem): string {
  return sha256(JSON.stringify(normalizedFields(item)));
}

/**
 * The item's matching key (rule 4): its itemIdempotencyKey when given, else a key derived from
 * team, manifest, batch, AWB and payload hash, so any change to a hashed field gives a new key
 * (and so reads as CREATE, not UPDATE).
 */
export function itemKey(args: { teamId: string; manifestNumber: string; batchId: string; item: HashableItem }): string {
  const explicit = str(args.item.itemIdempotencyKey);
  if (explicit) return explicit;
  const { teamId, manifestNumber, batchId, item } = args;
  return sha256(`${teamId}|${manifestNumber}|${batchId}|${awbOf(item) ?? ''}|${payloadHash(item)}`);
}

export type ItemDecision = 'CREATE' | 'UPDATE' | 'SKIP' | 'REJECT';

/**
 * One item's update-mode decision (spec 3.5). `existing` is the record of the batch with the same
 * key, if any. `seenKeysInPayload` holds the keys of earlier items of this payload; decide() adds
 * the incoming key to it, so the caller passes the same set for every item of one payload.
 * `crossTeam` is set by the caller when the store says the AWB belongs to another team.
 */
export function decide(
  existing: { key: string; hash: string } | undefined,
  incoming: { key: string; hash: string; awb?: string; crossTeam?: boolean },
  seenKeysInPayload: Set<string>,
): { decision: ItemDecision; reason: string } {
  const key = incoming.key.trim();
  if (!key) return { decision: 'REJECT', reason: 'missing idempotency key' };
  if (seenKeysInPayload.has(key)) return { decision: 'REJECT', reason: 'duplicate idempotency key in payload' };
  seenKeysInPayload.add(key);
  if (!incoming.awb?.trim()) return { decision: 'REJECT', reason: 'missing AWB' };
  if (incoming.crossTeam) return { decision: 'REJECT', reason: 'AWB belongs to another team' };
  if (!existing) return { decision: 'CREATE', reason: 'no existing record in the batch' };
  if (existing.hash === incoming.hash) return { decision: 'SKIP', reason: 'payload unchanged' };
  return { decision: 'UPDATE', reason: 'payload changed' };
}
