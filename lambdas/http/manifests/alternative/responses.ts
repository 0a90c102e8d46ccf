import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { batchStatuses } from '#core/manifests/model';
import { ManifestRecord } from '../responses';
import { data, failure, integer, money, nullable, pageMeta, replayedHeader, timestamp } from '#http/kit/responses';

/** The answers of the alternative manifest interface (spec 4.5), for openapi.json. */

const status = v.picklist(batchStatuses);
const orNull = <S extends v.GenericSchema>(s: S) => nullable(s);

export const manifestsResponses = {
  ManifestsList: {
    answers: {
      200: data(
        "A page of the caller's manifests",
        v.array(v.strictObject({ manifest_id: v.string(), batch_id: v.string(), total_products: integer, processing_status: status, created_at: timestamp })),
        { extra: { meta: pageMeta } },
      ),
    },
  },
  ManifestsCreate: {
    requestHeaders: ['Idempotency-Key', 'X-Signature'],
    answers: {
      201: data(
        'Queued on the courier intake path (a replay of the same Idempotency-Key answers the same)',
        v.strictObject({ manifest_id: v.string(), batch_id: nullable(v.string()), total_products: integer, processing_status: v.literal('pending') }),
        { message: true, headers: replayedHeader },
      ),
      400: failure('Malformed JSON or a bad Idempotency-Key', ['bad_request']),
      413: failure('The body is too large', ['payload_too_large']),
      415: failure('Not JSON', ['unsupported_media_type']),
      422: failure('Invalid (one entry per field)', ['validation_failed']),
    },
  },
  ManifestsShow: {
    answers: {
      200: data(
        'The manifest and a page of its products with customs results (null until processed)',
        v.strictObject({
          manifest: v.strictObject({ ...ManifestRecord.entries, processing_status: status }),
          products: v.array(
            v.strictObject({
              awb_number: v.string(),
              tracking_number: orNull(v.string()),
              item_key: v.string(),
              consignee: v.string(),
              product_description: orNull(v.string()),
              quantity: orNull(integer),
              fob_value: orNull(v.number()),
              country_of_manufacture: v.string(),
              ncm_code: orNull(v.string()),
              regime: orNull(v.string()),
              cif_value: orNull(money),
              ddp_value: orNull(money),
              customs_duty: orNull(money),
              customs_channel: orNull(v.picklist(['V', 'A', 'RO'])),
              quota: v.strictObject({ tax_id: orNull(v.string()), quota: orNull(integer) }),
            }),
          ),
        }),
        { extra: { meta: pageMeta } },
      ),
      404: failure('No such manifest in the account', ['not_found']),
    },
  },
} satisfies Record<string, RouteResponses>;
