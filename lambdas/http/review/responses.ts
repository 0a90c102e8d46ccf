import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { data, failure, integer, money, nullable, timestamp } from '../kit/responses';
import { reviewCauseNames } from '#core/review/queue';
import { ClassificationReview, ManifestRecord, ProcessedProduct } from '../manifests/responses';

/** The answers of the review routes, for openapi.json. */

const notFound = failure('No such manifest, batch or AWB in this account', ['not_found']);
const incomplete = failure('The batch is not processed yet', ['processing_incomplete'], { batch_id: v.string(), status: v.string(), progress: integer });
const closedBatch = failure('The batch was closed by the broker (spec 7.2)', ['manifest_closed'], { closed_at: timestamp, manifest_number: v.string(), batch_id: v.string() });

/** A decision's 409: the batch is not processed yet, or another decision moved it four times under this one. */
const decisionConflict = failure('The batch is not processed yet, or it changed while the decision was written', ['processing_incomplete', 'conflict'], {
  batch_id: v.optional(v.string()),
  status: v.optional(v.string()),
  progress: v.optional(integer),
});

const cursorMeta = { per_page: integer, cursor: nullable(v.string()), next_cursor: nullable(v.string()) };

const figures = v.strictObject({
  ncm_code: nullable(v.string()),
  classification_source: nullable(v.string()),
  customs_duty: nullable(money),
  vat: nullable(money),
  amount_to_pay: nullable(money),
  customs_channel: nullable(v.picklist(['V', 'A', 'RO'])),
});

const inboxBatch = v.strictObject({
  batch_id: v.string(),
  manifest_number: v.string(),
  account_id: integer,
  account_name: nullable(v.string()),
  created_at: timestamp,
  products: integer,
  products_awaiting: integer,
  at_stake: money,
  amount_to_pay: money,
  risk_flags: integer,
  reviewed: integer,
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
  ReviewInbox: {
    answers: {
      200: data(
        "What needs the broker's action: document counts per courier, review totals, and a page of flights, oldest first",
        v.strictObject({
          documents: v.strictObject({
            awaiting_validation: integer,
            awaiting_approval: integer,
            oldest_at: nullable(timestamp),
            by_account: v.array(v.strictObject({ account_id: integer, account_name: nullable(v.string()), awaiting_validation: integer, awaiting_approval: integer, oldest_at: nullable(timestamp) })),
          }),
          review: v.strictObject({ products_awaiting: integer, at_stake: money, batches_open: integer, flights: integer, risk_flags: integer, batches_processing: integer }),
          flights: v.array(v.strictObject({ mawb_number: v.string(), oldest_at: timestamp, products_awaiting: integer, at_stake: money, risk_flags: integer, batches: v.array(inboxBatch) })),
        }),
        { extra: { meta: v.strictObject({ ...cursorMeta, since: timestamp }) } },
      ),
    },
  },
  ReviewBatches: {
    answers: {
      200: data(
        "A page of every account's batches, newest first",
        v.array(v.strictObject({ ...ManifestRecord.entries, account_id: integer, account_name: nullable(v.string()), reviewed: integer })),
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
            review_causes: v.array(v.picklist(reviewCauseNames)),
            declared_code: nullable(v.string()),
            candidates: v.array(v.strictObject({ ncm_code: v.string(), description: v.string(), duty_rate: v.number(), vat_rate: v.number(), score: v.number(), matched_words: v.array(v.string()) })),
          }),
        ),
        { extra: { meta: v.strictObject({ ...cursorMeta, review_threshold: v.number(), products_awaiting: nullable(integer), batch_id: v.string(), manifest_number: v.string(), closed_at: nullable(timestamp), account_id: integer, account_name: nullable(v.string()) }) } },
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
      409: decisionConflict,
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
            group_id: v.optional(v.string()),
            group_size: v.optional(integer),
          }),
        ),
        { extra: { meta: v.strictObject(cursorMeta) } },
      ),
      404: notFound,
    },
  },
  ReviewGroups: {
    answers: {
      200: data(
        'One page of the products awaiting review grouped by normalized description and declared code, largest group first',
        v.array(
          v.strictObject({
            group_id: v.string(),
            description: nullable(v.string()),
            declared_code: nullable(v.string()),
            products: integer,
            awbs: integer,
            amount_to_pay: money,
            ncm_codes: v.array(v.strictObject({ ncm_code: v.string(), products: integer })),
            review_causes: v.array(v.picklist(reviewCauseNames)),
            item_keys: v.array(v.string()),
            candidates: v.array(v.strictObject({ ncm_code: v.string(), description: v.string(), duty_rate: v.number(), vat_rate: v.number(), matched_words: v.array(v.string()) })),
          }),
        ),
        { extra: { meta: v.strictObject({ ...cursorMeta, groups: integer, batch_id: v.string(), manifest_number: v.string(), closed_at: nullable(timestamp), account_id: integer, account_name: nullable(v.string()) }) } },
      ),
      404: notFound,
      409: incomplete,
    },
  },
  ReviewGroupClassification: {
    answers: {
      200: data(
        'How many products the decision changed, and the duty and amount to pay it moved',
        v.strictObject({
          batch_id: v.string(),
          manifest_number: v.string(),
          group_id: v.string(),
          revision: integer,
          ncm_code: nullable(v.string()),
          changed: integer,
          awbs: integer,
          customs_duty_moved: money,
          amount_to_pay_moved: money,
          left_review: integer,
          summary: v.strictObject({ amount_to_pay: money, currency: v.string(), review_pending: nullable(integer) }),
        }),
        { message: true },
      ),
      404: notFound,
      409: decisionConflict,
      423: closedBatch,
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
