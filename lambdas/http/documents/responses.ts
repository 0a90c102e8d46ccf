import * as v from 'valibot';
import type { ResponseDef, RouteResponses } from '#catalog/types';
import { documentStates, documentTypes } from '#core/documents/model';
import { data, done, failure, integer, presignedUploadResponses, nullable, pageMeta, replayedHeader, timestamp } from '../kit/responses';

/** The answers of the transport-document routes (spec 2.4, 3.2, 4.2, 7.1), for openapi.json: see core/documents/views.ts. */

const state = v.picklist(documentStates);
const listEntry = {
  id: integer,
  manifest_id: nullable(v.string()),
  awb_number: nullable(v.string()),
  document_type: v.picklist(documentTypes),
  document_type_label: v.string(),
  file_name: v.string(),
  file_size: integer,
  file_size_human: v.string(),
  mime_type: v.string(),
  state,
  state_label: v.string(),
  version: integer,
  created_at: timestamp,
  updated_at: timestamp,
};
export const TransportDocument = v.strictObject({
  ...listEntry,
  checksum: v.pipe(v.string(), v.regex(/^sha256:[0-9a-f]{64}$/)),
  metadata: v.record(v.string(), v.unknown()),
});
const actor = nullable(v.strictObject({ id: integer, name: v.string(), email: nullable(v.string()) }));
const DocumentDetail = v.strictObject({
  ...TransportDocument.entries,
  uploader: actor,
  validator: actor,
  approver: actor,
  rejecter: actor,
  validation_notes: nullable(v.string()),
  approval_notes: nullable(v.string()),
  validated_at: nullable(timestamp),
  approved_at: nullable(timestamp),
  rejection_reason: nullable(v.string()),
  rejected_at: nullable(timestamp),
  superseded_by: nullable(integer),
  supersede_reason: nullable(v.string()),
  superseded_at: nullable(timestamp),
});

const notFound = failure('No such document visible to this account', ['not_found']);
const stateConflict = failure('The document cannot make this move from its state', ['conflict']);
/** A file in the body (multipart `file`, or JSON `file_base64` with `filename`): the failures of reading it. */
const fileFailures: Record<number, ResponseDef> = {
  400: failure('Malformed multipart, invalid base64, or a bad Idempotency-Key', ['bad_request']),
  413: failure('The file is larger than 10 MB', ['payload_too_large']),
  415: failure('Neither multipart/form-data nor JSON', ['unsupported_media_type']),
  422: failure('A field is invalid (one entry per field in `errors`)', ['validation_failed']),
};

export const documentsResponses = {
  DocumentsUpload: {
    requestHeaders: ['Idempotency-Key'],
    answers: {
      201: data('The document stored (state uploaded, version 1); a replay of the same Idempotency-Key answers the same document', TransportDocument, { message: true, headers: replayedHeader }),
      ...fileFailures,
    },
  },
  ...presignedUploadResponses('Documents', '10 MB', { description: 'The document stored from the uploaded file (or, called again, the same one)', schema: TransportDocument }),
  DocumentsList: {
    answers: {
      200: data('A page of documents (no checksum, no metadata), each with its account and the account\'s name', v.array(v.strictObject({ ...listEntry, account_id: integer, account_name: nullable(v.string()) })), {
        extra: { meta: pageMeta },
      }),
    },
  },
  DocumentsShow: { answers: { 200: data('The document in detail form', DocumentDetail), 404: notFound } },
  DocumentsDownload: {
    answers: {
      200: data(
        'A signed URL to the file, valid 60 minutes',
        v.strictObject({ download_url: v.string(), expires_in_minutes: integer, file_name: v.string(), file_size: integer, mime_type: v.string() }),
      ),
      404: notFound,
    },
  },
  DocumentsHistory: {
    answers: {
      200: data(
        'The current version and every earlier one, newest first',
        v.strictObject({
          current: v.strictObject({ id: integer, version: integer, state, created_at: timestamp }),
          history: v.array(
            v.strictObject({
              id: integer,
              version: integer,
              state,
              superseded_by: nullable(integer),
              supersede_reason: nullable(v.string()),
              created_at: timestamp,
              superseded_at: nullable(timestamp),
            }),
          ),
          total_versions: integer,
        }),
      ),
      404: notFound,
    },
  },
  DocumentsValidate: {
    answers: {
      200: data(
        'Validated',
        v.strictObject({ id: integer, state, state_label: v.string(), validation_notes: nullable(v.string()), validated_at: timestamp }),
        { message: true },
      ),
      404: notFound,
      409: stateConflict,
    },
  },
  DocumentsApprove: {
    answers: {
      200: data('Approved', v.strictObject({ id: integer, state, state_label: v.string(), approved_at: timestamp }), { message: true }),
      404: notFound,
      409: stateConflict,
    },
  },
  DocumentsReject: {
    answers: {
      200: data('Rejected', v.strictObject({ id: integer, state, state_label: v.string(), rejection_reason: v.string(), rejected_at: timestamp }), { message: true }),
      404: notFound,
      409: stateConflict,
    },
  },
  DocumentsBulkReview: {
    answers: {
      200: data(
        "Each document's outcome, in the order sent: done (the action happened), already (it was in that state: a retry), refused (its state does not allow it; message says why) or not_found",
        v.strictObject({
          action: v.string(),
          done: integer,
          already: integer,
          refused: integer,
          not_found: integer,
          results: v.array(v.strictObject({ id: integer, outcome: v.picklist(['done', 'already', 'refused', 'not_found']), state: nullable(state), message: nullable(v.string()) })),
        }),
        { message: true },
      ),
    },
  },
  DocumentsSupersede: {
    requestHeaders: ['Idempotency-Key'],
    answers: {
      201: data(
        'The new version (uploaded) and the superseded one',
        v.strictObject({
          new_document: v.strictObject({ id: integer, file_name: v.string(), state, version: integer }),
          superseded_document: v.strictObject({ id: integer, state: v.literal('superseded'), superseded_by: integer }),
        }),
        { message: true },
      ),
      ...fileFailures,
      403: failure('Only the uploading account may supersede its document', ['forbidden']),
      404: notFound,
      409: stateConflict,
    },
  },
  DocumentsDelete: {
    answers: {
      200: done('Deleted'),
      403: failure('Not the uploading account, or the document is neither uploaded nor rejected (an approved document is never deleted)', ['forbidden']),
      404: notFound,
    },
  },
} satisfies Record<string, RouteResponses>;
