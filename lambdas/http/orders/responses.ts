import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { fulfillmentStatuses, orderChannels, orderStatuses, shipmentStatuses } from '#core/orders/model';
import { data, done, failure, integer, money, nullable, pageMeta, replayedHeader, timestamp } from '../kit/responses';

/** The answers of the order routes (spec 2.1, 2.2, 2.3), for openapi.json: see core/orders/views.ts. */

const channel = v.picklist(orderChannels);
const address = v.strictObject({ name: v.string(), address1: v.string(), city: v.string(), state: v.string(), postal_code: v.string(), country: v.string() });
const fullAddress = v.strictObject({ ...address.entries, address2: nullable(v.string()), phone: nullable(v.string()) });
const totals = v.strictObject({ subtotal: money, shipping: money, tax: money, total: money, currency: v.string() });

export const OrderListItem = v.strictObject({
  id: integer,
  order_number: v.string(),
  channel,
  channel_order_id: nullable(v.string()),
  status: v.picklist(orderStatuses),
  fulfillment_status: v.picklist(fulfillmentStatuses),
  // As the marketplace says it (paid, pending, payment_required, ...); web orders use financialStatuses.
  financial_status: nullable(v.string()),
  customer: v.strictObject({ name: v.string(), email: v.string() }),
  shipping_address: address,
  // The list form shows the first 20 items; item_count says how many the order has (the detail lists them all).
  items: v.array(v.strictObject({ id: integer, sku: v.string(), name: v.string(), quantity: integer, price: money, currency: v.string() })),
  item_count: integer,
  totals,
  created_at: timestamp,
});

export const Shipment = v.strictObject({
  id: integer,
  tracking_number: v.string(),
  carrier: v.string(),
  service: v.string(),
  status: v.picklist(shipmentStatuses),
  items: v.array(v.strictObject({ order_item_id: integer, sku: v.string(), quantity: integer })),
  label_url: nullable(v.string()),
  estimated_delivery: nullable(v.string()),
  delivered_at: nullable(timestamp),
  created_at: timestamp,
  /** What the carrier charged for the label (external carriers, when it says). */
  shipping_cost: v.optional(v.strictObject({ amount: money, currency: v.string() })),
  /** When the carrier voided the label (an order cancelled with unused labels). */
  voided_at: v.optional(timestamp),
});

export const OrderDetail = v.strictObject({
  ...OrderListItem.entries,
  customer: v.strictObject({ name: v.string(), email: v.string(), phone: nullable(v.string()) }),
  shipping_address: fullAddress,
  billing_address: nullable(fullAddress),
  items: v.array(
    v.strictObject({
      id: integer,
      product_id: integer,
      sku: v.string(),
      name: v.string(),
      quantity: integer,
      quantity_fulfilled: integer,
      price: money,
      weight: nullable(v.number()),
      currency: v.string(),
    }),
  ),
  totals: v.strictObject({ ...totals.entries, discount: money }),
  shipments: v.array(Shipment),
  timeline: v.array(v.strictObject({ event: v.string(), timestamp, description: v.string() })),
  notes: nullable(v.string()),
  cancelled_at: nullable(timestamp),
  updated_at: timestamp,
});

const channelResult = v.strictObject({
  status: v.picklist(['pending', 'processing', 'completed', 'failed']),
  orders_synced: integer,
  orders_new: integer,
  orders_updated: integer,
  orders_rejected: integer,
  rejected: v.array(v.strictObject({ channel_order_id: nullable(v.string()), reason: v.string() })),
  error: nullable(v.string()),
});

const stateConflict = failure('The order cannot make this move from its state, or changed under heavy concurrency', ['conflict'], undefined, {
  'Retry-After': { description: 'Seconds to wait when the order was changing under concurrency', type: 'integer' },
});
const notFound = failure('No such order of this account', ['not_found']);
/** An external carrier's API failed (502), rate-limited us past the retries (503) or did not answer in time (504). */
const carrierFailures = {
  502: failure("The carrier's API failed or answered what cannot be used; `carrier` names it", ['bad_gateway'], { carrier: v.string() }),
  503: failure('The carrier kept answering 429 after the retries; retry after Retry-After', ['unavailable'], { carrier: v.optional(v.string()) }, { 'Retry-After': { description: 'Seconds to wait', type: 'integer' } }),
  504: failure("The carrier's API did not answer in time; `carrier` names it", ['gateway_timeout'], { carrier: v.string() }),
};

export const ordersResponses = {
  OrdersList: {
    answers: {
      200: data('A page of orders (list form) and its pagination', v.strictObject({ orders: v.array(OrderListItem), pagination: pageMeta })),
    },
  },
  OrdersCreate: {
    requestHeaders: ['Idempotency-Key'],
    answers: {
      201: data('The order created (detail form); a replay of the same Idempotency-Key gives the same order', OrderDetail, { message: true, headers: replayedHeader }),
      409: failure('The order number is taken', ['conflict'], { field: v.optional(v.string()) }),
    },
  },
  OrdersShow: { answers: { 200: data('The order in detail form', OrderDetail), 404: notFound } },
  OrdersUpdate: {
    answers: {
      200: data(
        'The fields that were sent, as stored now',
        v.strictObject({
          id: integer,
          status: v.optional(v.picklist(orderStatuses)),
          notes: v.optional(nullable(v.string())),
          shipping_address: v.optional(fullAddress),
          fulfillment_status: v.picklist(fulfillmentStatuses),
          updated_at: timestamp,
        }),
        { message: true },
      ),
      404: notFound,
      409: stateConflict,
    },
  },
  OrdersShip: {
    requestHeaders: ['Idempotency-Key'],
    answers: {
      201: data(
        'The shipment created, its tracking number and label',
        v.strictObject({
          order_id: integer,
          shipment_id: integer,
          tracking_number: v.string(),
          carrier: v.string(),
          service: v.string(),
          label_url: v.string(),
          estimated_delivery: nullable(v.string()),
          fulfillment_status: v.picklist(fulfillmentStatuses),
          notified_customer: v.boolean(),
        }),
        { message: true, headers: replayedHeader },
      ),
      404: notFound,
      409: stateConflict,
      ...carrierFailures,
    },
  },
  OrdersFulfill: {
    requestHeaders: ['Idempotency-Key'],
    answers: {
      200: data(
        'The shipment recorded with the tracking number given',
        v.strictObject({
          order_id: integer,
          shipment_id: integer,
          fulfillment_status: v.picklist(fulfillmentStatuses),
          tracking_number: v.string(),
          carrier: v.string(),
          notified_customer: v.boolean(),
        }),
        { message: true, headers: replayedHeader },
      ),
      404: notFound,
      409: stateConflict,
    },
  },
  OrdersCancel: {
    answers: {
      200: data(
        'The order cancelled (or already cancelled); the shipments whose unused labels the carriers voided',
        v.strictObject({ order_id: integer, status: v.picklist(orderStatuses), cancelled_at: nullable(timestamp), voided_shipments: v.optional(v.array(integer)) }),
        { message: true },
      ),
      404: notFound,
      409: failure('The order cannot be cancelled from its state, or a carrier refused to void a label (the labels voided before it are listed)', ['conflict'], { voided_shipments: v.optional(v.array(integer)) }, {
        'Retry-After': { description: 'Seconds to wait when the order was changing under concurrency', type: 'integer' },
      }),
      ...carrierFailures,
    },
  },
  OrdersShipments: { answers: { 200: data('The shipments of the order', v.strictObject({ shipments: v.array(Shipment) })), 404: notFound } },
  OrdersSync: {
    answers: {
      202: data(
        'The sync started',
        v.strictObject({ sync_id: v.string(), status: v.string(), channels: v.array(v.string()), since: nullable(timestamp), started_at: timestamp }),
        { message: true },
      ),
      409: failure('A sync is already running', ['conflict'], { sync_id: nullable(v.string()) }),
    },
  },
  OrdersSyncStatus: {
    answers: {
      200: data(
        'The last sync (null before the first) and the next scheduled one',
        v.strictObject({
          last_sync: nullable(
            v.strictObject({
              sync_id: v.string(),
              status: v.picklist(['processing', 'completed', 'completed_with_errors', 'failed']),
              trigger: v.picklist(['manual', 'scheduled']),
              since: nullable(timestamp),
              started_at: timestamp,
              completed_at: nullable(timestamp),
              channels: v.record(v.string(), channelResult),
            }),
          ),
          next_scheduled_sync: timestamp,
        }),
      ),
    },
  },
  MarketplacesList: {
    answers: {
      200: data('The connected marketplaces (never their credentials)', v.strictObject({ marketplaces: v.array(v.strictObject({ channel: v.string(), base_url: nullable(v.string()), updated_at: timestamp })) })),
    },
  },
  MarketplacesConnect: {
    answers: {
      200: data('Connected: the names of the credentials stored, never their values', v.strictObject({ channel: v.string(), base_url: nullable(v.string()), credentials: v.array(v.string()) }), { message: true }),
    },
  },
  MarketplacesDisconnect: { answers: { 200: done('Disconnected') } },
} satisfies Record<string, RouteResponses>;
