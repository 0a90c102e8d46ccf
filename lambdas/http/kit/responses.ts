import * as v from 'valibot';
import type { ResponseDef, RouteResponses } from '#catalog/types';

/**
 * Building blocks of the areas' `responses.ts`: the answers each route declares for openapi.json
 * and the integration suite's contract check. Only the catalog reads these; no handler imports them
 * (they would weigh on every bundle).
 */

/** ISO 8601 UTC with `Z` (DESIGN.md, "Conventions of the interface"). */
export const timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('ISO 8601 UTC timestamp'));
/** Money: a number with 2 decimals. */
export const money = v.pipe(v.number(), v.description('Amount with 2 decimals'));
export const integer = v.pipe(v.number(), v.integer());
export const nullable = <S extends v.GenericSchema>(s: S) => v.nullable(s);

type Entries = v.ObjectEntries;

/**
 * `{ success: true, data?, message?, meta?, ...extra }`, every listed field present, none other.
 * `message: 'optional'` for answers that carry it only sometimes.
 */
export function okBody(parts: { data?: v.GenericSchema; message?: true | 'optional'; meta?: v.GenericSchema; extra?: Entries }) {
  const entries: Entries = { success: v.literal(true) };
  if (parts.data) entries.data = parts.data;
  if (parts.message === true) entries.message = v.string();
  if (parts.message === 'optional') entries.message = v.optional(v.string());
  if (parts.meta) entries.meta = parts.meta;
  return v.strictObject({ ...entries, ...parts.extra });
}

/** `meta` of a paginated list (lambdas/http/kit/paginate.ts). */
export const pageMeta = v.strictObject({ current_page: integer, last_page: integer, per_page: integer, total: integer });

/** A JSON success answer. */
export function json(description: string, body: v.GenericSchema, headers?: ResponseDef['headers']): ResponseDef {
  return { description, body, headers };
}

/** A success answer with `data` (and `message` when given). */
export function data(description: string, schema: v.GenericSchema, opts: { message?: true | 'optional'; meta?: v.GenericSchema; extra?: Entries; headers?: ResponseDef['headers'] } = {}): ResponseDef {
  return { description, body: okBody({ data: schema, message: opts.message, meta: opts.meta, extra: opts.extra }), headers: opts.headers };
}

/** A failure particular to the route, with its machine codes and any extra top-level fields. */
export function failure(description: string, errors: readonly string[], extra?: Entries, headers?: ResponseDef['headers']): ResponseDef {
  return { description, errors, body: extra ? v.strictObject(extra) : undefined, headers };
}

/** A file or page. */
export function file(description: string, contentTypes: readonly string[], headers?: ResponseDef['headers']): ResponseDef {
  return { description, file: contentTypes, headers };
}

/** A redirect to a signed URL. */
export function redirect(description: string): ResponseDef {
  return { description, headers: { Location: { description: 'Where the file is (a signed URL)' } } };
}

export const replayedHeader = { 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key' } } as const;

/** Where and how to POST one file straight to storage (kit/presigned.ts `presignedForm`). */
export const PresignedForm = v.strictObject({
  upload_id: v.string(),
  upload_url: v.string(),
  method: v.literal('POST'),
  fields: v.record(v.string(), v.string()),
  file_field: v.literal('file'),
  max_bytes: integer,
  content_type: v.string(),
});

/** The 201 of an upload-url route (services/presigned-upload.ts, step 1): where and how to POST the file, then where to complete. */
export const PresignedUpload = v.strictObject({
  ...PresignedForm.entries,
  expires_in_seconds: integer,
  complete_url: v.string(),
});

/**
 * The answers of the two routes of a presigned upload (`<area>UploadUrl`, `<area>UploadComplete`),
 * the same for every area that takes large files that way: `limit` as the area's limit reads
 * ("10 MB"), `stored` what the second step records.
 */
export function presignedUploadResponses<A extends string>(area: A, limit: string, stored: { description: string; schema: v.GenericSchema }) {
  const start = {
    201: data('Where and how to POST the file, then the complete URL', PresignedUpload, { message: true }),
    413: failure(`The declared file is larger than ${limit}`, ['payload_too_large']),
  };
  const complete = {
    201: data(stored.description, stored.schema, { message: true }),
    404: failure('No such upload of this account', ['not_found']),
    409: failure('The file has not been uploaded yet: POST it to the upload_url first', ['conflict']),
    422: failure('The uploaded file does not match what was declared (it is removed; upload again)', ['validation_failed']),
  };
  const routes: [string, RouteResponses][] = [[`${area}UploadUrl`, { answers: start }], [`${area}UploadComplete`, { answers: complete }]];
  return Object.fromEntries(routes) as Record<`${A}UploadUrl` | `${A}UploadComplete`, RouteResponses>;
}

/** A success with a `message` and no `data` (deletes, disconnects). */
export function done(description: string): ResponseDef {
  return { description, body: okBody({ message: true }) };
}

/** One rate of a product and where it comes from (core/customs/tariff-rates.ts `RateCheck`). */
const rateCheck = v.strictObject({
  rate: v.number(),
  status: v.picklist(['verified', 'unverified', 'imported']),
  source: v.string(),
  read: v.optional(v.string()),
  note: v.optional(v.string()),
});

/** The duty, statistics fee and VAT of a product, each with its source, and whether all were verified. */
export const tariffRates = v.strictObject({ duty: rateCheck, statistics_fee: rateCheck, vat: rateCheck, verified: v.boolean() });

/** What a processed product keeps of its rates: each rate and its status, the duty's source (core/customs/tariff-rates.ts `rateStatuses`). */
const rateStatus = v.strictObject({ rate: v.number(), status: v.picklist(['verified', 'unverified', 'imported']) });
export const tariffRateStatuses = v.strictObject({ duty: v.strictObject({ ...rateStatus.entries, source: v.string() }), statistics_fee: rateStatus, vat: rateStatus, verified: v.boolean() });
