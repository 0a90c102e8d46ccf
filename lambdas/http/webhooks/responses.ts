import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { webhookEventNames } from '#core/webhooks/events';
import { data, done, failure, integer, json, nullable, pageMeta, timestamp } from '../kit/responses';

/** The answers of the webhook subscription routes (spec 2.9, 4.8), for openapi.json. */

const healthStatus = v.picklist(['healthy', 'degraded', 'unhealthy', 'disabled']);
export const Subscription = v.strictObject({
  id: integer,
  endpoint_url: v.string(),
  events: v.array(v.picklist(webhookEventNames)),
  active: v.boolean(),
  health_status: healthStatus,
  health_status_color: v.picklist(['green', 'yellow', 'red', 'gray']),
  consecutive_failures: integer,
  failed_deliveries: integer,
  disabled_reason: nullable(v.string()),
  last_delivery_at: nullable(timestamp),
  last_success_at: nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
  /** The token that made it (its id and name); null for one made before issue 41. */
  created_by: nullable(v.strictObject({ token_id: integer, name: nullable(v.string()) })),
});
const Delivery = v.strictObject({
  id: integer,
  event_id: v.string(),
  event_type: v.string(),
  state: v.picklist(['pending', 'retrying', 'delivered', 'failed']),
  attempts: v.array(v.strictObject({ attempted_at: timestamp, status_code: nullable(integer), response_time_ms: integer, error: nullable(v.string()) })),
  next_attempt_at: nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
});
const notFound = failure('No such subscription (or delivery) of this account', ['not_found']);
const important = { important: v.string() };

/** The one secret's form: `whsec_` and the standard base64 of 32 bytes. */
const oneFormSecret = /^whsec_[A-Za-z0-9+/]{43}=$/;
const secretFields = {
  hmac_secret: v.pipe(
    v.string(),
    v.regex(oneFormSecret),
    v.description('The signing secret, shown this once: `whsec_` and the base64 of 32 random bytes. Standard Webhooks libraries take it as it is (webhook-signature); X-Service-Signature is keyed with its text'),
  ),
  standard_webhooks_secret: v.pipe(v.string(), v.regex(oneFormSecret), v.description('Deprecated (removed in the next release): the same value as hmac_secret')),
};

/** What a creation or a rotation says about the secret it shows. */
export const secretNotice =
  'Store the secret now: it is shown only once. It signs both X-Service-Signature and webhook-signature; a Standard Webhooks library takes it as it is.';

export const webhooksResponses = {
  WebhooksAvailableEvents: {
    answers: {
      200: data('Every event a subscription can name', v.array(v.strictObject({ event: v.picklist(webhookEventNames), type: v.string(), action: v.string(), description: v.string() })), {
        extra: { count: integer },
      }),
    },
  },
  WebhooksList: { answers: { 200: data("The account's subscriptions with their health", v.array(Subscription), { extra: { count: integer } }) } },
  WebhooksCreate: {
    answers: {
      201: data(
        'The subscription, with its one secret shown this once (hmac_secret): it signs X-Service-Signature and webhook-signature, and Standard Webhooks libraries take it as it is',
        v.strictObject({ ...Subscription.entries, ...secretFields }),
        { message: true, extra: important },
      ),
    },
  },
  WebhooksShow: { answers: { 200: data('The subscription with its health', Subscription), 404: notFound } },
  WebhooksUpdate: {
    answers: {
      200: data(
        'Updated (or reactivated: active=true on a disabled subscription resets its failures)',
        v.strictObject({ id: integer, endpoint_url: v.string(), events: v.array(v.picklist(webhookEventNames)), active: v.boolean(), health_status: healthStatus, updated_at: timestamp }),
        { message: true },
      ),
      404: notFound,
    },
  },
  WebhooksDelete: { answers: { 200: done('Deleted, with its delivery log'), 404: notFound } },
  WebhooksTest: {
    answers: {
      200: json('The endpoint accepted the signed test delivery', v.strictObject({ success: v.literal(true), message: v.string(), data: v.strictObject({ status_code: integer, response_time_ms: integer }) })),
      404: notFound,
      409: failure('The subscription is disabled: reactivate it first', ['conflict']),
      502: json(
        'The endpoint did not accept the test delivery: its status (null when it did not answer) and the error (spec 4.8)',
        v.strictObject({ success: v.literal(false), message: v.string(), data: v.strictObject({ status_code: nullable(integer), error: v.string(), response_time_ms: integer }) }),
      ),
    },
  },
  WebhooksDeliveries: { answers: { 200: data('A page of the delivery log, newest first', v.array(Delivery), { extra: { meta: pageMeta } }), 404: notFound } },
  WebhooksRetry: {
    answers: {
      200: data('The delivery after one more attempt now', Delivery, { message: true }),
      404: notFound,
      409: failure('Already delivered, the subscription is disabled, or another attempt is running', ['conflict']),
    },
  },
  WebhooksRetryFailed: {
    answers: {
      200: data('How many failed deliveries were queued again', v.strictObject({ queued: integer }), { message: true }),
      404: notFound,
      409: failure('The subscription is disabled: reactivate it first', ['conflict']),
    },
  },
  WebhooksRotateSecret: {
    answers: {
      200: data(
        'The new secret, shown this once; the old one signs beside it (X-Service-Previous-Signature and a second webhook-signature) until previous_secret_expires_at',
        v.strictObject({ id: integer, ...secretFields, previous_secret_expires_at: timestamp }),
        { message: true, extra: important },
      ),
      404: notFound,
    },
  },
} satisfies Record<string, RouteResponses>;

/** The `data` of the events (spec 6.3; docs/partners/webhooks.md lists what each adds), for openapi.json's `webhooks`. */
const orderSummary = {
  id: integer,
  order_number: v.string(),
  channel: v.string(),
  status: v.string(),
  totals: v.strictObject({ subtotal: v.number(), shipping: v.number(), tax: v.number(), total: v.number(), currency: v.string() }),
};
const manifestRef = { manifest_number: v.string(), batch_id: v.string(), mawb_number: v.string() };
const manifestSummary = v.strictObject({
  personal_items: v.optional(integer),
  commercial_items: v.optional(integer),
  prohibited_items: v.optional(integer),
  amount_to_pay: v.optional(v.number()),
  currency: v.optional(v.string()),
  total_awbs: v.optional(integer),
  total_products: v.optional(integer),
  /** The products awaiting the broker's review and what they pay (issue 40). */
  review_pending: v.optional(integer),
  review_at_stake: v.optional(v.number()),
  /** The products the risk rules flagged: products, flags in all, by rule (issue 40, item 5). */
  risk_flags: v.optional(v.strictObject({ products: integer, total: integer, by_rule: v.record(v.string(), integer) })),
});
const documentRef = {
  id: integer,
  account_id: integer,
  document_type: v.string(),
  state: v.string(),
  version: integer,
  file_name: v.string(),
  manifest_id: nullable(v.string()),
  awb_number: nullable(v.string()),
};

export const webhookEventData: Record<(typeof webhookEventNames)[number], v.GenericSchema> = {
  'order.created': v.strictObject({
    id: integer,
    order_number: v.string(),
    channel: v.string(),
    channel_order_id: nullable(v.string()),
    status: v.string(),
    customer: v.strictObject({ name: v.string(), email: v.string() }),
    items: v.array(v.strictObject({ id: integer, sku: v.string(), name: v.string(), quantity: integer, price: v.number(), currency: v.string() })),
    totals: v.strictObject({ subtotal: v.number(), shipping: v.number(), total: v.number(), currency: v.string() }),
    created_at: timestamp,
  }),
  'order.updated': v.strictObject({
    ...orderSummary,
    previous_status: v.optional(v.string()),
    fulfillment_status: v.optional(v.string()),
    shipment_id: v.optional(integer),
  }),
  'order.cancelled': v.strictObject({ ...orderSummary, cancelled_at: nullable(timestamp), reason: nullable(v.string()) }),
  'shipment.created': v.strictObject({
    shipment_id: integer,
    order_id: integer,
    carrier: v.string(),
    service: v.string(),
    tracking_number: v.string(),
    label_url: v.string(),
    estimated_delivery: v.string(),
    created_at: timestamp,
  }),
  'shipment.delivered': v.strictObject({ shipment_id: integer, order_id: integer, carrier: v.string(), tracking_number: v.string(), delivered_at: nullable(timestamp) }),
  'inventory.low_stock': v.strictObject({
    product_id: integer,
    sku: v.string(),
    name: v.string(),
    current_stock: integer,
    threshold: integer,
    warehouse_id: integer,
    warehouse_name: v.string(),
  }),
  'manifest.processed': v.strictObject({
    ...manifestRef,
    summary: manifestSummary,
    /** Present when the event announces a broker's review, sent when the reviewed batch is closed (issue 33). */
    review: v.optional(v.strictObject({ revision: integer, closed_at: v.string(), closed_by: nullable(v.string()) })),
  }),
  'manifest.processing_completed': v.strictObject({ ...manifestRef, summary: manifestSummary }),
  'manifest.invalid_cuit_detected': v.strictObject({
    ...manifestRef,
    awbs: v.array(v.strictObject({ awb_number: v.string(), tax_id: nullable(v.string()), reason: v.string() })),
    part: integer,
    parts: integer,
    total_awbs: integer,
  }),
  'manifest.total_due': v.strictObject({ ...manifestRef, amount_to_pay: v.number(), currency: v.string() }),
  'manifest.processing_failed': v.strictObject({ ...manifestRef, stage: nullable(v.string()), error: v.string() }),
  'document.uploaded': v.strictObject({ ...documentRef, supersedes: v.optional(integer) }),
  'document.validated': v.strictObject({ ...documentRef, validation_notes: nullable(v.string()) }),
  'document.approved': v.strictObject(documentRef),
  'document.rejected': v.strictObject({ ...documentRef, rejection_reason: v.string() }),
  'document.superseded': v.strictObject({ ...documentRef, superseded_by: integer, new_version: integer, supersede_reason: nullable(v.string()) }),
  'document.downloaded': v.strictObject({ ...documentRef, downloaded_by: v.strictObject({ account_id: integer, token_id: integer }) }),
};

/* The events feed (GET /v1/events). */

/** An event as its deliveries send it (spec 2.10): one envelope per event, its `data` as the event's. */
const Envelope = v.variant(
  'type',
  webhookEventNames.map((name) => v.strictObject({ id: v.string(), type: v.literal(name), created_at: timestamp, data: webhookEventData[name] })),
);

export const eventsResponses = {
  EventsList: {
    answers: {
      200: data('A page of the account\'s events, each exactly as its deliveries send it', v.array(Envelope), {
        extra: {
          meta: v.strictObject({
            next_cursor: nullable(v.string()),
            has_more: v.boolean(),
            limit: integer,
            order: v.picklist(['desc', 'asc']),
          }),
        },
      }),
    },
  },
} satisfies Record<string, RouteResponses>;
