import * as v from 'valibot';
import { safeIdentifier } from '../identifier';
import { isoAlpha2 } from './countries';

/**
 * Courier manifest submission (spec 2.5): the manifest root and its items.
 *
 * Conventions of this schema (choices the spec leaves open):
 * - Strings are trimmed before their bounds are checked, so a bound counts the characters kept.
 * - An optional field sent as null, "" or whitespace counts as absent (spreadsheet exports send
 *   empty columns); a required field must be a non-empty string.
 * - Item fields the spec does not name are dropped (partners send extra columns).
 * - Numbers must be JSON numbers: "12.5" as text is refused rather than guessed.
 * - Identifier fields (AWB, MAWB, keys, codes) refuse control and bidirectional characters and
 *   unpaired surrogates (core/identifier.ts).
 * - Errors are keyed by the path the client sent, e.g. `items.12.consigneeEmail`.
 */

export const maxItemsPerSubmission = 100_000;
export const maxChunks = 50;
export const defaultProvince = 'Buenos Aires';

/** Tab, line feed and carriage return are allowed (descriptions span lines); other control characters are not. */
const noControl = v.regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, 'Must not contain control characters.');

/** Missing required keys read as "Required."; anything else that is not an object as "Must be an object.". */
const objectMessage = (issue: v.BaseIssue<unknown>) =>
  issue.received === 'undefined' && issue.expected?.startsWith('"') ? 'Required.' : 'Must be an object.';

const maxChars = (max: number) => v.maxLength<string, number, string>(max, `Must be at most ${max} characters.`);

/** A required, trimmed, non-empty string of at most `max` characters. */
const reqText = (max: number) =>
  v.pipe(v.string('Must be a string.'), v.trim(), v.nonEmpty('Must not be empty.'), maxChars(max), noControl);

/** An optional string: null, "" and whitespace become absent; what is left must pass `inner`. */
const opt = (inner: v.GenericSchema<string, string>) =>
  v.optional(
    v.pipe(
      v.nullable(v.string('Must be a string.')),
      v.transform((s): string | undefined => s?.trim() || undefined),
      v.optional(inner),
    ),
  );

export const optText = (max: number) => opt(v.pipe(v.string(), maxChars(max), noControl));

/** Identifiers (AWB, MAWB, keys, codes) refuse what a label would not show: see core/identifier.ts. */
const reqId = (max: number) => v.pipe(v.string('Must be a string.'), v.trim(), v.nonEmpty('Must not be empty.'), maxChars(max), safeIdentifier);
export const optId = (max: number) => opt(v.pipe(v.string(), maxChars(max), safeIdentifier));

const isHttpUrl = (s: string) => {
  try {
    const url = new URL(s);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

const optUrl = (max: number) =>
  opt(v.pipe(v.string(), maxChars(max), v.check(isHttpUrl, 'Must be an http(s) URL, e.g. https://shop.example/item/1.')));

const optEmail = (max: number) => opt(v.pipe(v.string(), maxChars(max), v.email('Must be an e-mail address.')));

const optDigits = (max: number) =>
  opt(v.pipe(v.string(), maxChars(max), v.regex(/^\d+$/, 'Must contain digits only (no hyphens, dots or spaces).')));

/** ISO 3166-1 alpha-2, accepted in any case and returned upper-case. */
const Country = v.pipe(
  v.string('Must be a string.'),
  v.trim(),
  v.toUpperCase(),
  v.check((c) => isoAlpha2.has(c), 'Must be an ISO 3166-1 alpha-2 country code (two letters, e.g. AR, CN, US).'),
);

/**
 * An optional JSON number: finite, >= 0 and at most 2^53 - 1; null counts as absent. The bound is
 * the JSON body rule of the route kit, repeated here for numbers that come from spreadsheet cells:
 * beyond it a number is not exact, and the table refuses to store it.
 */
const optAmount = (integer = false) =>
  v.optional(
    v.pipe(
      v.nullable(
        v.pipe(
          v.number('Must be a number (not text).'),
          v.finite('Must be a finite number.'),
          v.check((n) => !integer || Number.isInteger(n), 'Must be a whole number.'),
          v.minValue(0, 'Must not be negative.'),
          v.maxValue(Number.MAX_SAFE_INTEGER, `Must be at most ${Number.MAX_SAFE_INTEGER}.`),
        ),
      ),
      v.transform((n): number | undefined => n ?? undefined),
    ),
  );

const taxIdTypesWith11Digits = new Set(['CUIT', 'CUIL']);

export const ManifestItem = v.pipe(
  v.object(
    {
      trackingNumber: optId(100),
      awbNumber: optId(100),
      itemIdempotencyKey: optId(128),
      originCountry: Country,
      consigneeName: reqText(200),
      consigneeAddress: optText(255),
      consigneeCity: optText(100),
      consigneeProvince: optText(100),
      consigneePostalCode: optText(20),
      consigneeIdType: optText(50),
      consigneeIdNumber: optDigits(50),
      consigneePhoneNumber: optText(50),
      consigneeEmail: optEmail(150),
      itemName: optText(255),
      itemDescription: optText(1000),
      hsCode: optId(20),
      fobValueUsd: optAmount(),
      totalWeightKg: optAmount(),
      totalVolumetricWeightKg: optAmount(),
      amountOfItems: optAmount(true),
      amountOfPackages: optAmount(true),
      boxNumber: optId(50),
      productLink: optUrl(500),
      imageLink: optUrl(500),
      Category: optText(100),
      customerName: optText(200),
      shipperName: optText(200),
      shipperEmail: optEmail(150),
    },
    objectMessage,
  ),
  v.forward(
    v.partialCheck(
      [['trackingNumber'], ['awbNumber']],
      (i) => i.trackingNumber !== undefined || i.awbNumber !== undefined,
      'Send awbNumber or trackingNumber.',
    ),
    ['awbNumber'],
  ),
  v.forward(
    v.partialCheck(
      [['consigneeIdType'], ['consigneeIdNumber']],
      (i) =>
        i.consigneeIdNumber === undefined ||
        !taxIdTypesWith11Digits.has((i.consigneeIdType ?? '').toUpperCase()) ||
        i.consigneeIdNumber.length === 11,
      'A CUIT or CUIL has 11 digits.',
    ),
    ['consigneeIdNumber'],
  ),
  v.transform((i) => ({ ...i, consigneeProvince: i.consigneeProvince ?? defaultProvince })),
);

const int = (min: number, max?: number) =>
  v.pipe(
    v.number('Must be a number (not text).'),
    v.integer('Must be a whole number.'),
    v.minValue(min, `Must be at least ${min}.`),
    v.maxValue(max ?? Number.MAX_SAFE_INTEGER, `Must be at most ${max ?? Number.MAX_SAFE_INTEGER}.`),
  );

/** `_chunk_metadata` (spec 4.3): one slice of a manifest sent in up to 50 chunks. */
export const ChunkMetadata = v.pipe(
  v.object(
    {
      chunk_number: int(1),
      total_chunks: int(1, maxChunks),
      base_idempotency_key: v.pipe(v.string('Must be a string.'), v.trim(), v.uuid('Must be a UUID.')),
      total_items: int(1),
    },
    objectMessage,
  ),
  v.forward(
    v.partialCheck(
      [['chunk_number'], ['total_chunks']],
      (m) => m.chunk_number <= m.total_chunks,
      'Must not be greater than total_chunks.',
    ),
    ['chunk_number'],
  ),
);

export const ManifestSubmission = v.pipe(
  v.object(
    {
      mawbNumber: reqId(50),
      items: v.pipe(
        v.array(ManifestItem, 'Must be an array of items.'),
        v.minLength(1, 'Send at least one item.'),
        v.maxLength(maxItemsPerSubmission, `Send at most ${maxItemsPerSubmission} items per request; use chunked mode for more.`),
      ),
      manifestNumber: optId(100),
      batchId: optId(100),
      airline: optText(100),
      flightNumber: optId(50),
      aircraftRegistration: optId(50),
      originAirport: optId(5),
      customsBrokerCode: optId(50),
      _chunk_metadata: v.optional(ChunkMetadata),
    },
    objectMessage,
  ),
  v.transform((m) => ({ ...m, manifestNumber: m.manifestNumber ?? m.mawbNumber })),
);

export type ManifestSubmissionInput = v.InferInput<typeof ManifestSubmission>;
export type ManifestSubmission = v.InferOutput<typeof ManifestSubmission>;
export type ManifestItemInput = v.InferInput<typeof ManifestItem>;
export type ManifestItem = v.InferOutput<typeof ManifestItem>;
export type ChunkMetadata = v.InferOutput<typeof ChunkMetadata>;

/** The item's air waybill: awbNumber wins when both are sent, else trackingNumber. */
export function awbOf(item: { awbNumber?: string | null; trackingNumber?: string | null }): string | undefined {
  return item.awbNumber?.trim() || item.trackingNumber?.trim() || undefined;
}
