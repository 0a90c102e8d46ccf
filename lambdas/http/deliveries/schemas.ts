import * as v from 'valibot';
import { deliveryFields, locationPaired, locationPairedMessage } from '#core/deliveries/proof';
import { isCalendarDate } from '#core/customs/argentine-calendar';
import { cursorParam, identifier, intQuery, text } from '../kit/schemas';

/** One proof: the delivery's fields and its file in base64 (at most 4 MB once decoded). */
export const RecordBody = v.pipe(
  v.object({
    ...deliveryFields,
    file_base64: v.pipe(v.string('Must be a base64 string.'), v.maxLength(5_600_000, 'Must be at most 4 MB once decoded.')),
    file_name: text(255),
  }),
  v.forward(v.partialCheck([['latitude'], ['longitude']], locationPaired, locationPairedMessage), ['longitude']),
);

/** Exactly one of the three ways to find proofs. */
export const ListQuery = v.pipe(
  v.object({
    awb_number: v.optional(identifier(50)),
    manifest_id: v.optional(identifier(100)),
    mawb_number: v.optional(identifier(50)),
    per_page: v.optional(intQuery(1, 100), '25'),
    cursor: v.optional(cursorParam(2000)),
  }),
  v.forward(
    v.check((q) => [q.awb_number, q.manifest_id, q.mawb_number].filter((x) => x !== undefined).length === 1, 'Give exactly one of awb_number, manifest_id or mawb_number.'),
    ['awb_number'],
  ),
);

/** One of the two files of a day's import, declared before it is POSTed to storage. */
const DeclaredFile = v.object({
  filename: text(255),
  file_size: v.pipe(v.number('Must be a number.'), v.integer('Must be an integer.'), v.minValue(1, 'The file is empty.')),
  checksum: v.pipe(v.string('Must be a string.'), v.regex(/^sha256:[0-9a-f]{64}$/, 'Must be sha256:<64 lower-case hex digits>.')),
});

/** Both files of a day's import at once: the CSV and the ZIP of the proofs' files. */
export const BulkUploadUrlBody = v.object({ csv: DeclaredFile, zip: DeclaredFile });

export const BulkBody = v.object({
  day: v.pipe(v.string('Must be a string.'), v.check(isCalendarDate, 'Must be a date written YYYY-MM-DD.')),
  csv_upload_id: v.pipe(v.string('Must be a string.'), v.uuid('Must be the upload_id of the CSV.')),
  zip_upload_id: v.pipe(v.string('Must be a string.'), v.uuid('Must be the upload_id of the ZIP.')),
});

export const FlightParams = v.object({ mawb: identifier(50) });
