import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { data, failure, presignedUploadResponses, integer, nullable, pageMeta, replayedHeader, timestamp } from '../kit/responses';

/** The answers of the manifest file storage (spec 2.8, 4.7), for openapi.json: see core/manifest-files/views.ts. */

export const StoredFile = v.strictObject({
  id: integer,
  file_name: v.string(),
  file_url: v.string(),
  file_size: v.strictObject({ bytes: integer, human: v.string() }),
  courier_code: v.string(),
  manifest_name: nullable(v.string()),
  description: nullable(v.string()),
  mime_type: v.string(),
  checksum: v.string(),
  uploaded_at: timestamp,
});

export const storageResponses = {
  ManifestStorageUpload: {
    requestHeaders: ['Idempotency-Key'],
    answers: {
      201: data('The file stored, with a file_url signed for 60 minutes', StoredFile, { message: true, headers: replayedHeader }),
      400: failure('Malformed multipart, or a bad Idempotency-Key', ['bad_request']),
      413: failure('The file is larger than 40 MB', ['payload_too_large']),
      415: failure('Not multipart/form-data', ['unsupported_media_type']),
      422: failure('A field is invalid, or the file is missing or not json, xlsx, xls or xlsm', ['validation_failed']),
    },
  },
  ...presignedUploadResponses('ManifestStorage', '40 MB', { description: 'The file stored from the upload (or, called again, the same one)', schema: StoredFile }),
  ManifestStorageList: { answers: { 200: data("A page of the account's stored files, newest first", v.array(StoredFile), { extra: { meta: pageMeta } }) } },
} satisfies Record<string, RouteResponses>;
