import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { data, failure, integer, nullable, PresignedForm, timestamp } from '../kit/responses';

/** The answers of the proofs of delivery (issue 44), for openapi.json: see core/deliveries/proof.ts `proofView`. */

const proofFile = {
  file_name: v.string(),
  mime_type: v.picklist(['image/png', 'image/jpeg', 'application/pdf']),
  file_size: integer,
  checksum: v.string(),
};

export const ProofFields = {
  awb_number: v.string(),
  account_id: integer,
  manifest_id: v.string(),
  mawb_number: v.string(),
  batch_id: v.string(),
  delivered_at: timestamp,
  recipient: v.strictObject({ name: v.string(), dni: v.string(), relation: v.string() }),
  location: nullable(v.strictObject({ latitude: nullable(v.number()), longitude: nullable(v.number()), address: nullable(v.string()) })),
  source: v.picklist(['api', 'bulk']),
  recorded_at: timestamp,
  retain_until: timestamp,
};

export const Proof = v.strictObject({ ...ProofFields, file: v.strictObject({ ...proofFile, download_url: v.string() }) });
/** The proof as `delivery.recorded` carries it: without a download URL. */
export const ProofEvent = v.strictObject({ ...ProofFields, file: v.strictObject(proofFile) });

/** A presigned POST straight to storage for one of the two files. */
const StorageForm = PresignedForm;

const invalid = failure('A field is invalid (named in errors), or the AWB is not of any manifest of this account', ['validation_failed']);

export const deliveriesResponses = {
  DeliveriesRecord: {
    answers: {
      201: data('The proof kept (or, sent again with the same content, the same proof)', Proof, { message: true }),
      400: failure('file_base64 is not base64, or the body is not JSON', ['bad_request']),
      409: failure('The AWB already has a different proof of delivery (a proof is never replaced)', ['conflict'], { awb_number: v.string() }),
      413: failure('The body is larger than the file allows (4 MB)', ['payload_too_large']),
      422: invalid,
    },
  },
  DeliveriesList: {
    answers: {
      200: data('A page of proofs, each with a download URL valid 60 minutes', v.array(Proof), {
        extra: { meta: v.strictObject({ per_page: integer, cursor: nullable(v.string()), next_cursor: nullable(v.string()) }) },
      }),
      422: failure('None or more than one of awb_number, manifest_id, mawb_number, or a bad cursor', ['validation_failed']),
    },
  },
  DeliveriesBulkUploadUrl: {
    answers: {
      201: data('Where and how to POST each file, then import both with POST /v1/deliveries/bulk', v.strictObject({ csv: StorageForm, zip: StorageForm, expires_in_seconds: integer, import_url: v.string() }), { message: true }),
      413: failure('The CSV is over 1 MB or the ZIP over 50 MB', ['payload_too_large']),
      422: failure('A field is invalid', ['validation_failed']),
    },
  },
  DeliveriesBulk: {
    answers: {
      201: data("The day's proofs kept, all of them (or, sent again, the same answer)", v.strictObject({ day: v.string(), proofs: integer, awb_numbers: v.array(v.string()) }), { message: true }),
      404: failure('No such upload of this account', ['not_found']),
      409: failure('A file has not been uploaded yet', ['conflict']),
      422: failure('A row, the ZIP or a file was refused (named: rows[n].field, zip, csv); nothing was recorded', ['validation_failed']),
    },
  },
  DeliveriesFlightArchive: {
    answers: {
      200: data("The flight's ZIP (index.csv and one file per proof), signed for 60 minutes", v.strictObject({ download_url: v.string(), file_name: v.string(), expires_in_minutes: integer })),
      404: failure('No proof of this flight that the caller may see', ['not_found']),
    },
  },
} satisfies Record<string, RouteResponses>;
