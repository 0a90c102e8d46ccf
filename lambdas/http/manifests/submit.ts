import { route } from '../kit/route';
import { isJsonMediaType, parseJson, validateBody } from '../kit/json-body';
import { validate } from '../kit/validate';
import { idempotencyKey } from '../kit/idempotency-key';
import { ValidationFailed } from '#core/errors';
import { excelSlugs } from '#core/manifests/excel/slugs';
import { checkSignature, submitChunk, submitManifest } from '#services/manifests/intake';
import { CouriersSubmit } from '#catalog/manifests';

/** Lambda's synchronous invoke limit is 6 MB for the whole event; a body over this is refused up front. */
export const submitBodyBytes = 6 * 1000 * 1000;

const tooLarge = `The request body is over the 6 MB limit of one request. Send the manifest in chunked mode: up to 50 requests, each with a slice of the items and _chunk_metadata {chunk_number, total_chunks, base_idempotency_key, total_items}.`;

const spreadsheetTypes = ['multipart/form-data', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.ms-excel', 'application/vnd.ms-excel.sheet.macroenabled.12'];

/** A zip (.xlsx, .xlsm) or an OLE compound file (.xls), whatever Content-Type it came under. */
const looksLikeWorkbook = (b: Buffer) => b.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1')) || b.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]));

/**
 * A workbook sent to `default` is told which slugs take one (422 on `courier`, as an unknown slug
 * is): the fix is in the path, not in the body.
 */
function refuseWorkbook(rawBody: Buffer | undefined, contentType: string | undefined): void {
  const media = contentType?.split(';')[0].trim().toLowerCase() ?? '';
  if (!spreadsheetTypes.includes(media) && !(rawBody && !isJsonMediaType(contentType) && looksLikeWorkbook(rawBody))) return;
  const message = `The \`default\` slug takes a JSON manifest (application/json). An Excel workbook goes, as multipart/form-data (field "file", plus mawbNumber and the other manifest fields), to the slug of its layout: ${excelSlugs.join(', ')} (docs/partners/excel-layouts.md).`;
  throw new ValidationFailed({ courier: [message] }, message);
}

/** A JSON manifest (the `default` slug), read by the kit's JSON rules. */
function jsonSubmission(rawBody: Buffer | undefined, contentType: string | undefined) {
  refuseWorkbook(rawBody, contentType);
  const input = parseJson(rawBody, contentType);
  if (input === undefined) throw new ValidationFailed({ body: ['Send the manifest (spec 2.5) as the request body.'] });
  return validateBody(CouriersSubmit.schemas.body, input);
}

/**
 * An Excel manifest (a partner slug); a body that is not multipart is 415. Validation of the
 * converted workbook keeps the field paths, with messages that name the row and column. The
 * spreadsheet reader loads only here, so JSON submissions start without it.
 */
async function sheetSubmission(rawBody: Buffer | undefined, contentType: string | undefined, slug: string) {
  const input = await (await import('./excel-in')).readExcelSubmission(rawBody ?? Buffer.alloc(0), contentType, slug);
  try {
    return validate(CouriersSubmit.schemas.body, input);
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    const { withSpreadsheetRows } = await import('#core/manifests/excel/convert');
    throw new ValidationFailed(withSpreadsheetRows(err.errors, input), err.message);
  }
}

export const handler = route({ params: CouriersSubmit.schemas.params, bodyMode: 'raw', maxBodyBytes: submitBodyBytes, tooLargeMessage: tooLarge }, async ({ rawBody, headers, principal, params }) => {
  const slug = params.courier;
  const excel = (excelSlugs as readonly string[]).includes(slug);
  if (slug !== 'default' && !excel) {
    throw new ValidationFailed({ courier: [`Unknown courier slug "${slug}". Use \`default\` for JSON payloads; Excel slugs are ${excelSlugs.join(', ')}.`] });
  }
  const key = idempotencyKey(headers);
  const sender = await checkSignature(principal, rawBody ?? Buffer.alloc(0), headers['x-signature']);
  const submission = excel ? await sheetSubmission(rawBody, headers['content-type'], slug) : jsonSubmission(rawBody, headers['content-type']);
  const answer = submission._chunk_metadata ? await submitChunk(sender, slug, submission) : await submitManifest(sender, slug, submission, key);
  const replayed = answer.replayed ? { 'Idempotent-Replayed': 'true' } : undefined;
  // A whole submission answers its stored bytes, so a replay is the first answer word for word.
  if (answer.bodyJson !== undefined) return { status: answer.status, raw: { contentType: 'application/json', body: answer.bodyJson }, headers: replayed };
  return { status: answer.status, body: answer.body, headers: replayed };
});
