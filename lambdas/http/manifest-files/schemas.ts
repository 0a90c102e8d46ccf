import * as v from 'valibot';
import { courierCodePattern, defaultPerPage, maxPerPage, normalizeCourierCode } from '#core/manifest-files/model';
import { intQuery, text } from '../kit/schemas';
import { UploadUrlBody as DocumentUploadUrlBody, UploadIdParams } from '../documents/schemas';

export { UploadIdParams };

/** A carrier code: 2 to 10 letters or digits, any case; upper-cased for storing and filtering. */
export const CourierCode = v.pipe(
  v.string('Must be a string.'),
  v.trim(),
  v.regex(courierCodePattern, 'Must be a carrier code of 2 to 10 letters or digits, e.g. DHL.'),
  v.transform(normalizeCourierCode),
);

const fileFields = {
  courier_code: CourierCode,
  manifest_name: v.optional(text(255)),
  description: v.optional(text(1000)),
};

/** A missing field reads "Required."; a body that is not an object, "Must be an object.". */
const objectMessage = (issue: v.BaseIssue<unknown>) => (issue.received === 'undefined' && issue.expected?.startsWith('"') ? 'Required.' : 'Must be an object.');

/** The form fields of a direct (multipart) upload; the file comes in the `file` part. */
export const UploadFields = v.object(fileFields, objectMessage);

/** The presigned (large file) path: declare the file first, upload it to storage, then complete. */
export const UploadUrlBody = v.object({
  ...fileFields,
  file_name: text(255),
  // Declared size and checksum follow the documents' rules (sha256:<hex>); the 40 MB limit is 413.
  file_size: DocumentUploadUrlBody.entries.file_size,
  checksum: DocumentUploadUrlBody.entries.checksum,
}, objectMessage);

export const ListQuery = v.object({
  courier_code: v.optional(CourierCode),
  per_page: v.optional(intQuery(1, maxPerPage), String(defaultPerPage)),
  page: v.optional(intQuery(1, 1_000_000), '1'),
});
