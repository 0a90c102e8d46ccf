import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { data, failure, integer, money, nullable, timestamp } from '../kit/responses';
import { ClassificationReview, ManifestRecord, ProcessedProduct } from '../manifests/responses';

/** The answers of the review routes, for openapi.json. */

const notFound = failure('No such manifest, batch or AWB in this account', ['not_found']);
const incomplete = failure('The batch is not processed yet', ['processing_incomplete'], { batch_id: v.string(), status: v.string(), progress: integer });
const closedBatch = failure('The batch was closed by the broker (spec 7.2)', ['manifest_closed'], { closed_at: timestamp, manifest_number: v.string(), batch_id: v.string() });

const cursorMeta = { per_page: integer, cursor: nullable(v.string()), next_cursor: nullable(v.string()) };

const figures = v.strictObject({
  ncm_code: nullable(v.string()),
  classification_source: nullable(v.string()),
  customs_duty: nullable(money),
  vat: nullable(money),
  amount_to_pay: nullable(money),
  customs_channel: nullable(v.picklist(['V', 'A', 'RO'])),
});

const searchResult = v.strictObject({
  kind: v.picklist(['batch', 'awb', 'taxid', 'consignee', 'product', 'document']),
  value: v.string(),
  account_id: integer,
  account_name: nullable(v.string()),
  batch_id: nullable(v.string()),
  manifest_number: nullable(v.string()),
  /** The console's address of the result. */
  link: v.string(),
  mawb_number: v.optional(nullable(v.string())),
  status: v.optional(nullable(v.string())),
  closed: v.optional(v.boolean()),
  awb_number: v.optional(nullable(v.string())),
  item_key: v.optional(nullable(v.string())),
  tax_id: v.optional(nullable(v.string())),
  tax_id_type: v.optional(nullable(v.string())),
  consignee_name: v.optional(nullable(v.string())),
  description: v.optional(nullable(v.string())),
  document_id: v.optional(nullable(integer)),
  file_name: v.optional(v.string()),
  document_type: v.optional(nullable(v.string())),
  state: v.optional(nullable(v.string())),
});

const searchGroup = v.strictObject({ results: v.array(searchResult), more: v.boolean(), next_cursor: nullable(v.string()) });

export const reviewResponses = {
  ReviewSearch: {
    answers: {
      200: data(
        'The results, grouped by kind (at most per_page each; `more` when there are others, `next_cursor` when `kind` was given)',
        v.strictObject({
          q: v.string(),
          kinds: v.array(v.string()),
          batches: searchGroup,
          awbs: searchGroup,
          tax_ids: searchGroup,
          consignees: searchGroup,
          products: searchGroup,
          documents: searchGroup,
        }),
      ),
    },
  },
  ReviewBatches: {
    answers: {
      200: data(
        "A page of every account's batches, newest first",
        v.array(v.strictObject({ ...ManifestRecord.entries, account_id: integer, reviewed: integer })),
        { extra: { meta: v.strictObject(cursorMeta) } },
      ),
    },
  },
  ReviewQueue: {
    answers: {
      200: data(
        'One page of the products to review, in item-key order',
        v.array(
          v.strictObject({
            ...ProcessedProduct.entries,
            review_causes: v.array(v.picklist(['channel_a', 'channel_ro', 'low_confidence'])),
            declared_code: nullable(v.string()),
            candidates: v.array(v.strictObject({ ncm_code: v.string(), description: v.string(), duty_rate: v.number(), score: v.number() })),
          }),
        ),
        { extra: { meta: v.strictObject({ ...cursorMeta, review_threshold: v.number(), batch_id: v.string(), manifest_number: v.string(), closed_at: nullable(timestamp) }) } },
      ),
      404: notFound,
      409: incomplete,
    },
  },
  ReviewClassification: {
    answers: {
      200: data(
        "The product as the broker's decision left it, its figures before, and the batch's new amount to pay",
        v.strictObject({
          batch_id: v.string(),
          manifest_number: v.string(),
          awb_number: v.string(),
          item_key: v.string(),
          revision: integer,
          before: nullable(figures),
          product: ProcessedProduct,
          summary: v.strictObject({ amount_to_pay: money, currency: v.string() }),
        }),
        { message: true },
      ),
      404: notFound,
      409: failure('The batch is not processed yet, or it changed while the decision was written', ['processing_incomplete', 'conflict'], {
        batch_id: v.optional(v.string()),
        status: v.optional(v.string()),
        progress: v.optional(integer),
      }),
      423: closedBatch,
    },
  },
  ReviewDecisions: {
    answers: {
      200: data(
        "The broker's classification decisions, newest first",
        v.array(
          v.strictObject({
            ...ClassificationReview.entries,
            awb_number: v.string(),
            item_key: v.string(),
            customs_duty_before: nullable(money),
            customs_duty: nullable(money),
            customs_channel_before: nullable(v.string()),
            customs_channel: nullable(v.string()),
          }),
        ),
        { extra: { meta: v.strictObject(cursorMeta) } },
      ),
      404: notFound,
    },
  },
  QuotaShipments: {
    answers: {
      200: data(
        "The tax id's personal shipments of the year and the batches holding them (a partner sees its own; `others` counts the rest)",
        v.strictObject({
          tax_id: v.string(),
          tax_id_formatted: v.string(),
          year: integer,
          limit: integer,
          used: integer,
          remaining: integer,
          shipments: v.array(
            v.strictObject({
              awb_number: v.string(),
              account_id: integer,
              batches: v.array(v.strictObject({ batch_id: v.string(), manifest_number: v.string(), status: v.string(), closed_at: nullable(timestamp), created_at: timestamp })),
            }),
          ),
          others: integer,
        }),
      ),
    },
  },
} satisfies Record<string, RouteResponses>;
