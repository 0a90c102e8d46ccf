import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { batchStatuses } from '#core/manifests/model';
import { stageNames } from '#core/pipeline/stages';
import { riskCodes } from '#core/customs/risk-codes';
import { data, failure, file, integer, json, money, nullable, okBody, pageMeta, redirect, replayedHeader, tariffRateStatuses, timestamp } from '../kit/responses';

/** A risk rule's flag on a product (issue 40, item 5; core/customs/risk-rules.ts): the rule, why (Spanish; English) and its norm. */
export const RiskFlag = v.strictObject({ code: v.picklist(riskCodes), reason: v.string(), reason_en: v.string(), norm: v.string() });
/** The rate that converted a batch's amounts to pesos: ARS per USD, its day and its source (docs/spec/customs-ar.md, "The exchange rate"). */
export const ExchangeRateShown = v.strictObject({
  rate: v.pipe(v.number(), v.description('ARS per 1 USD (Banco Nación selling rate)')),
  date: v.pipe(v.string(), v.description('The business day the rate is of, YYYY-MM-DD')),
  source: v.pipe(v.string(), v.description("'bcra', 'operator', or the operator's own words")),
});
const arsAmount = v.pipe(v.number(), v.description('Amount in pesos (ARS), 2 decimals: the dollars x the rate, rounded once, half up'));
/** A summary's pesos (issue 44): the total in pesos and the rate, or nulls and why the batch waits for its rate. Absent for batches processed before amounts in pesos. */
const summaryPesos = {
  amount_to_pay_ars: v.optional(nullable(arsAmount)),
  exchange_rate: v.optional(nullable(ExchangeRateShown)),
  pesos_pending: v.optional(
    v.pipe(
      v.strictObject({ date: v.string(), reason: v.string(), cause: v.string() }),
      v.description('The batch waits for the exchange rate of `date`: its dollar amounts are final, its pesos null until the rate is set (docs/partners/customs.md)'),
    ),
  ),
};
/** A processed product's pesos (issue 44): each amount in pesos at `exchange_rate`, null while the batch waits for its rate. Absent for products processed before amounts in pesos. */
const productPesos = {
  fob_value_ars: v.optional(nullable(arsAmount)),
  cif_value_ars: v.optional(nullable(arsAmount)),
  customs_duty_ars: v.optional(nullable(arsAmount)),
  statistics_fee_ars: v.optional(nullable(arsAmount)),
  vat_ars: v.optional(nullable(arsAmount)),
  ddp_value_ars: v.optional(nullable(arsAmount)),
  amount_to_pay_ars: v.optional(nullable(arsAmount)),
  exchange_rate: v.optional(nullable(ExchangeRateShown)),
};

/** The batch's count of risk flags: products flagged, flags in all, flags by rule. */
export const RiskFlagsSummary = v.strictObject({ products: integer, total: integer, by_rule: v.record(v.string(), integer) });

/** The answers of the courier manifest routes (spec 2.6, 4.3, 4.4, 7.2), for openapi.json: see core/manifests/views.ts. */

const batchStatus = v.picklist(batchStatuses);
const tracking = v.strictObject({ manifest_number: v.string(), batch_id: nullable(v.string()), mawb_number: v.string(), items_count: integer, timestamp });
const mode = v.picklist(['create', 'update']);

/** The 202 of spec 4.3, replayed word for word with 200 for a repeated Idempotency-Key. */
const queued = okBody({
  message: true,
  extra: { status: v.literal('queued'), idempotency_key: v.string(), manifest_number: v.string(), batch_id: nullable(v.string()), mode, tracking },
});
const chunkProgress = v.strictObject({ received_chunks: integer, missing_chunks: v.array(integer), percentage: integer, is_complete: v.boolean() });
/** A chunk taken while others are missing. */
const receiving = okBody({ message: true, extra: { status: v.literal('receiving'), chunk_number: integer, total_chunks: integer, progress: chunkProgress } });
/** The chunk that completes the upload: the manifest is queued (see docs/partners/manifests.md, "Chunked mode"). */
const complete = okBody({
  message: true,
  extra: {
    status: v.literal('complete'),
    chunk_number: integer,
    total_chunks: integer,
    progress: chunkProgress,
    idempotency_key: v.string(),
    manifest_number: v.string(),
    batch_id: v.string(),
    mode,
    tracking: v.strictObject({ ...tracking.entries, batch_id: v.string() }),
  },
});

export const ManifestRecord = v.strictObject({
  manifest_id: v.string(),
  batch_id: v.string(),
  status: batchStatus,
  progress: integer,
  summary: v.strictObject({
    total_awbs: integer,
    total_articles: integer,
    personal_items: integer,
    commercial_items: integer,
    prohibited_items: integer,
    amount_to_pay: money,
    currency: v.string(),
    /** The products the risk rules flagged (issue 40, item 5); absent for batches processed before them or with them off. */
    risk_flags: v.optional(RiskFlagsSummary),
    ...summaryPesos,
  }),
  mawb_number: v.string(),
  closed_at: nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
});

const chunkStatus = v.strictObject({
  manifest_number: v.string(),
  status: v.picklist(['receiving', 'complete', 'failed', 'expired']),
  progress: v.strictObject({ total_chunks: integer, received_chunks: integer, missing_chunks: v.array(integer), percentage: integer }),
  batch_id: nullable(v.string()),
  total_items: integer,
  received_items: integer,
  expires_at: timestamp,
  failure: v.optional(v.string()),
});

/** Who decided a product's tariff code, what and when. */
export const ClassificationReview = v.strictObject({
  revision: integer,
  ncm_code_before: nullable(v.string()),
  ncm_code: v.string(),
  reason: v.string(),
  decided_by: v.string(),
  decided_at: timestamp,
});

const orNull = <S extends v.GenericSchema>(s: S) => nullable(s);

/** A processed product of the download (spec 2.6), with the reasons behind each figure. */
export const ProcessedProduct = v.strictObject({
  awb_number: v.string(),
  tracking_number: orNull(v.string()),
  item_key: v.string(),
  description: orNull(v.string()),
  consignee: v.string(),
  tax_id: orNull(v.string()),
  tax_id_valid: orNull(v.boolean()),
  quota: orNull(integer),
  regime: orNull(v.string()),
  ncm_code: orNull(v.string()),
  /** The code the partner declared, as sent; null when none was (or for results written before issue 40). */
  declared_code: v.optional(orNull(v.string())),
  classification_confidence: orNull(v.number()),
  classification_source: orNull(v.picklist(['partner', 'ai', 'offline', 'hs-fallback', 'broker'])),
  /** What decided the code (the words a row met, the nomenclature's text, a broker's decision); null before the classification stage. */
  classification_evidence: orNull(v.string()),
  fob_value: orNull(v.number()),
  cif_value: orNull(money),
  customs_duty: orNull(money),
  statistics_fee: orNull(money),
  vat: orNull(money),
  ddp_value: orNull(money),
  amount_to_pay: orNull(money),
  currency: v.string(),
  customs_channel: orNull(v.picklist(['V', 'A', 'RO'])),
  reasons: v.array(v.string()),
  breakdown: orNull(v.record(v.string(), v.unknown())),
  /** The rates applied and their sources (issue 21); absent for a product without a tariff code. */
  tariff_rates: v.optional(nullable(tariffRateStatuses)),
  /** A broker's decision on the tariff code (PUT .../products/{awb}/classification); absent until there is one. */
  review: v.optional(ClassificationReview),
  /** The risk rules that flag the product (issue 40, item 5); absent when none does. */
  risk_flags: v.optional(v.array(RiskFlag)),
  ...productPesos,
});

const notFound = failure('No such manifest, batch or upload in this account', ['not_found']);
const closedBatch = failure('The batch was closed by the broker (spec 7.2)', ['manifest_closed'], {
  closed_at: timestamp,
  manifest_number: v.string(),
  batch_id: v.string(),
});

const downloadHeaders = {
  'Content-Encoding': { description: '`gzip` when the request accepted it and the format is text (json, ndjson, csv)' },
  Vary: { description: '`Accept-Encoding`' },
} as const;

export const couriersResponses = {
  CouriersSubmit: {
    requestHeaders: ['Idempotency-Key', 'X-Signature'],
    answers: {
      202: json('Queued (a whole manifest, or the chunk that completes a chunked upload), or a chunk received while others are missing', v.union([queued, receiving, complete])),
      200: json('A replay: the same Idempotency-Key with the same payload, or a chunk already received', v.union([queued, receiving, complete]), replayedHeader),
      400: failure('Malformed JSON or multipart, or a bad Idempotency-Key', ['bad_request']),
      409: failure('The Idempotency-Key (or the chunk) was used with other content, or the upload is changing too fast', ['conflict'], undefined, {
        'Retry-After': { description: 'Seconds to wait before resending', type: 'integer' },
      }),
      410: failure('The chunked upload expired with chunks missing', ['chunked_upload_expired']),
      413: failure('The body is over 6 MB: send the manifest in chunks', ['payload_too_large']),
      415: failure('A body that is not JSON under `default`', ['unsupported_media_type']),
      422: failure('Invalid manifest (one entry per field; under an Excel slug, a body that is not multipart is refused on `file`), a batchId not of this account, or a failed chunked upload', ['validation_failed', 'unknown_batch', 'chunked_upload_failed'], {
        batch_id: v.optional(v.string()),
      }),
      423: closedBatch,
    },
  },
  CouriersSubmissionStatus: {
    answers: {
      200: json(
        'The submission (or chunked upload) by its Idempotency-Key; timestamps without a zone (spec 4.3), in UTC',
        okBody({
          extra: {
            status: v.picklist(['queued', 'processing', 'completed', 'failed', 'receiving', 'complete', 'expired']),
            idempotency_key: v.string(),
            created_at: v.string(),
            updated_at: v.string(),
            batch_id: nullable(v.string()),
            manifest_number: v.string(),
            mode,
            items_count: integer,
            progress: integer,
            decisions: v.optional(nullable(v.strictObject({ create: integer, update: integer, skip: integer, reject: integer }))),
            intake: v.optional(
              v.pipe(
                v.strictObject({ items_received: integer, items_written: integer, estimated_seconds_left: integer }),
                v.description('A whole submission: its items received, those written so far, and the seconds left to write the rest (estimated from the rate so far); once written, equal counts and 0'),
              ),
            ),
            failure: nullable(v.string()),
          },
        }),
      ),
      404: notFound,
    },
  },
  CouriersChunkStatus: { answers: { 200: data('The chunked upload: chunks received and missing', chunkStatus), 404: notFound } },
  CouriersRetryMissing: {
    answers: {
      200: data(
        'The chunks still to send (nothing is resent)',
        v.strictObject({ manifest_number: v.string(), missing_chunks: v.array(integer), missing_count: integer, status: chunkStatus.entries.status }),
        { message: true },
      ),
      404: notFound,
    },
  },
  CouriersManifests: { answers: { 200: data("A page of the caller's manifests (spec 2.6)", v.array(ManifestRecord), { extra: { meta: pageMeta } }) } },
  CouriersBatchStatus: {
    answers: {
      200: data(
        'One entry per manifest asked for, `not_found` for one of another account',
        v.array(v.strictObject({ manifest_id: v.string(), batch_id: nullable(v.string()), status: v.picklist([...batchStatuses, 'not_found']), progress: integer, can_download: v.boolean() })),
      ),
    },
  },
  CouriersDecisions: {
    answers: {
      200: data(
        'A page of the per-item decisions of the batch (CREATE, UPDATE, SKIP, REJECT) and the counts',
        v.array(
          v.strictObject({
            item_key: v.string(),
            awb_number: v.string(),
            decision: v.picklist(['CREATE', 'UPDATE', 'SKIP', 'REJECT']),
            reason: v.string(),
            item_index: integer,
            chunk_number: nullable(integer),
            submission: v.string(),
            decided_at: timestamp,
          }),
        ),
        { extra: { meta: v.strictObject({ ...pageMeta.entries, counts: v.record(v.string(), integer) }) } },
      ),
      404: notFound,
    },
  },
  CouriersPipelineStatus: {
    answers: {
      200: data(
        'The four stages, overall progress and the summary',
        v.strictObject({
          manifest_id: v.string(),
          batch_id: v.string(),
          status: batchStatus,
          overall_progress: integer,
          pipeline_steps: v.array(v.strictObject({ key: v.picklist(stageNames), status: v.string(), progress: integer, pages_done: integer, pages: integer })),
          run_id: nullable(v.string()),
          started_at: nullable(timestamp),
          finished_at: nullable(timestamp),
          error: nullable(v.string()),
          summary: v.strictObject({
            total_products: integer,
            regime_breakdown: v.strictObject({ personal: integer, commercial: integer, prohibited: integer }),
            amount_to_pay: money,
            currency: v.string(),
            ...summaryPesos,
          }),
        }),
      ),
      404: notFound,
    },
  },
  CouriersDownload: {
    answers: {
      200: {
        ...data(
          'The results: JSON (`format=json`), one product per line (`format=ndjson`), or a CSV or Excel file as an attachment. A request whose Accept-Encoding takes gzip gets json, ndjson and csv compressed (`Content-Encoding: gzip`, about 10 times smaller)',
          v.strictObject({ manifest: ManifestRecord, total_products: integer, products: v.array(ProcessedProduct) }),
          { headers: downloadHeaders },
        ),
        file: ['application/x-ndjson', 'text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      },
      303: { ...redirect('A large result (over 5 MB, or 4 MB compressed): a signed URL to the file, served with the same Content-Type and Content-Encoding'), headers: { ...redirect('').headers, Vary: downloadHeaders.Vary } },
      404: notFound,
      409: failure('Processing is not at 100% yet', ['processing_incomplete'], { batch_id: v.string(), status: batchStatus, progress: integer }),
    },
  },
  CouriersBatchClose: { answers: { 200: data('Closed (or already closed)', batchClosed(), { message: true }), 404: notFound } },
  CouriersBatchReopen: { answers: { 200: data('Reopened (or not closed)', batchClosed(), { message: true }), 404: notFound } },
} satisfies Record<string, RouteResponses>;

function batchClosed() {
  return v.strictObject({ batch_id: v.string(), manifest_number: v.string(), closed: v.boolean(), closed_at: nullable(timestamp), closed_by: nullable(v.string()) });
}
