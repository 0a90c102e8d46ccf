import * as v from 'valibot';
import { documentStates, documentTypes } from '#core/documents/model';
import { identifier, intQuery, text } from '../kit/schemas';

export const maxMetadataBytes = 16 * 1024;

/** `metadata`: a JSON object (not an array, not null) of at most 16 KiB once serialized. */
export const Metadata = v.pipe(
  v.custom<Record<string, unknown>>((m) => typeof m === 'object' && m !== null && !Array.isArray(m), 'Must be a JSON object.'),
  v.record(v.string(), v.unknown(), 'Must be a JSON object.'),
  v.check((m) => Buffer.byteLength(JSON.stringify(m)) <= maxMetadataBytes, `Must be at most ${maxMetadataBytes / 1024} KB as JSON.`),
);

const documentFields = {
  document_type: v.picklist(documentTypes, `Must be one of ${documentTypes.join(', ')}.`),
  manifest_id: v.optional(identifier(100)),
  awb_number: v.optional(identifier(50)),
  metadata: v.optional(Metadata),
};

/** The fields of an upload, whichever way the file comes (multipart or base64). */
export const UploadFields = v.object(documentFields);

export const Base64Upload = v.object({
  ...documentFields,
  file_base64: v.string('Must be a base64 string.'),
  filename: text(255),
});

export const SupersedeFields = v.object({ reason: v.optional(text(1000)) });

export const Base64Supersede = v.object({
  file_base64: v.string('Must be a base64 string.'),
  filename: text(255),
  reason: v.optional(text(1000)),
});

export const ReviewBody = v.object({ notes: v.optional(text(2000)) });
export const RejectBody = v.object({ reason: text(2000) });

export const ListQuery = v.object({
  manifest_id: v.optional(identifier(100)),
  awb_number: v.optional(identifier(50)),
  document_type: v.optional(v.picklist(documentTypes, `Must be one of ${documentTypes.join(', ')}.`)),
  state: v.optional(v.picklist(documentStates, `Must be one of ${documentStates.join(', ')}.`)),
  per_page: v.optional(intQuery(1, 100), '15'),
  page: v.optional(intQuery(1, 1_000_000), '1'),
});

/** The presigned (large file) path: declare the file first, upload it to storage, then complete. */
export const UploadUrlBody = v.object({
  ...documentFields,
  filename: text(255),
  file_size: v.pipe(v.number('Must be a number.'), v.integer('Must be an integer.'), v.minValue(1, 'The file is empty.')),
  checksum: v.pipe(v.string('Must be a string.'), v.regex(/^sha256:[0-9a-f]{64}$/, 'Must be sha256:<64 lower-case hex digits>.')),
});

export const UploadIdParams = v.object({ uploadId: v.pipe(v.string(), v.uuid()) });

/** Many documents at once (issue 40): an action, the ids (at most 100, each once), the notes or the reason. */
export const bulkReviewActions = ['validate', 'approve', 'validate_and_approve', 'reject'] as const;
export const BulkReviewBody = v.pipe(
  v.object({
    action: v.picklist(bulkReviewActions, `Must be one of ${bulkReviewActions.join(', ')}.`),
    ids: v.pipe(
      v.array(v.pipe(v.number('Must be document ids (numbers).'), v.integer('Must be document ids (whole numbers).'), v.minValue(1, 'Must be document ids.')), 'Must be an array of document ids.'),
      v.minLength(1, 'Must name at least one document.'),
      v.maxLength(100, 'Must name at most 100 documents; send the rest in another request.'),
      v.check((ids) => new Set(ids).size === ids.length, 'Must name each document once.'),
    ),
    notes: v.optional(text(2000)),
    reason: v.optional(text(2000)),
  }),
  v.forward(
    v.check((b) => b.action !== 'reject' || Boolean(b.reason), 'Is required to reject: the partner reads it.'),
    ['reason'],
  ),
);
