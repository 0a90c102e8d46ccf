import * as v from 'valibot';
import type { WebhookEventName } from '#core/webhooks/events';
import { reviewedProductsShown } from '#core/webhooks/events';
import { integer, nullable, timestamp } from '../kit/responses';

/**
 * Every event's `data`, declared once (issue 42): when it fires, the schema of its fields (each
 * with what it means) and one example. openapi.json's `webhooks` is made from it (system/openapi.ts),
 * the events table of docs/partners/webhooks.md from that (`npm run catalog:events`), and the
 * integration suite holds every event the twin publishes to it (test/support/twin.ts).
 */

/** A field with what it means (its `description` in openapi.json and in the docs' tables). */
const d = <S extends v.GenericSchema>(s: S, text: string) => v.pipe(s, v.description(text));

const money = (text: string) => d(v.number(), text);

const orderTotals = d(
  v.strictObject({
    subtotal: money('Sum of the items'),
    shipping: money('Shipping charged'),
    tax: money('Taxes charged'),
    total: money('What the customer pays'),
    currency: d(v.string(), 'ISO 4217 code'),
  }),
  'The order\'s money',
);
const orderSummary = {
  id: d(integer, 'Order id'),
  order_number: d(v.string(), 'Order number shown to the merchant'),
  channel: d(v.string(), 'Where the order came from: `web` or a marketplace'),
  status: d(v.string(), 'The order\'s status now'),
  totals: orderTotals,
};

const manifestRef = {
  manifest_number: d(v.string(), 'The manifest number the courier submitted (spec 2.5 `manifest_id`)'),
  batch_id: d(v.string(), 'The batch: this import of the manifest; the routes take it in place of the manifest number'),
  mawb_number: d(v.string(), 'The master air waybill of the flight'),
};

const manifestSummary = d(
  v.strictObject({
    personal_items: v.optional(d(integer, 'Products under the personal regime (P)')),
    commercial_items: v.optional(d(integer, 'Products under the commercial regime (C)')),
    prohibited_items: v.optional(d(integer, 'Prohibited products (X)')),
    amount_to_pay: v.optional(d(v.number(), 'Duties and taxes of the whole manifest')),
    currency: v.optional(d(v.string(), 'Currency of `amount_to_pay`')),
    total_awbs: v.optional(d(integer, 'AWBs (shipments) in the manifest')),
    total_products: v.optional(d(integer, 'Products (items) in the manifest')),
    review_pending: v.optional(d(integer, 'Products awaiting the broker\'s review')),
    review_at_stake: v.optional(d(v.number(), 'Duties and taxes of the products awaiting review')),
    risk_flags: v.optional(
      d(
        v.strictObject({
          products: d(integer, 'Products with at least one flag'),
          total: d(integer, 'Flags in all'),
          by_rule: d(v.record(v.string(), integer), 'Flags per risk rule'),
        }),
        'What the risk rules flagged',
      ),
    ),
    amount_to_pay_ars: v.optional(d(nullable(v.number()), '`amount_to_pay` in pesos (ARS) at `exchange_rate`, to the centavo; null while the manifest waits for its rate')),
    exchange_rate: v.optional(
      d(
        nullable(
          v.strictObject({
            rate: d(v.number(), 'ARS per 1 USD (Banco Nación selling rate)'),
            date: d(v.string(), 'The business day the rate is of, YYYY-MM-DD'),
            source: d(v.string(), "Where it came from: 'bcra', 'operator', or the operator's words"),
          }),
        ),
        'The rate that converted the amounts to pesos; null while the manifest waits for it',
      ),
    ),
    pesos_pending: v.optional(
      d(
        v.strictObject({
          date: d(v.string(), 'The day whose rate is missing, YYYY-MM-DD'),
          reason: d(v.string(), 'Why the pesos wait and how to set the rate'),
          cause: d(v.string(), 'What the rate sources answered'),
        }),
        'Present while the manifest waits for its exchange rate: the dollars are final, the pesos null',
      ),
    ),
  }),
  "The manifest's results as a whole: fields absent on a manifest with nothing to count",
);

const documentRef = {
  id: d(integer, 'Document id'),
  account_id: d(integer, 'The account that owns it'),
  document_type: d(v.string(), 'Its type (documents.md lists them)'),
  state: d(v.string(), 'Its state after the event: uploaded, validated, approved, rejected, superseded'),
  version: d(integer, 'Its version (1, then one more per supersede)'),
  file_name: d(v.string(), 'The file name as uploaded'),
  manifest_id: d(nullable(v.string()), 'The manifest it belongs to, if any'),
  awb_number: d(nullable(v.string()), 'The AWB it belongs to, if any'),
};

/** A product a broker's review changed, as GET .../review/decisions lists it. */
const reviewedProduct = v.strictObject({
  revision: d(integer, 'The decision\'s revision'),
  item_key: d(v.string(), 'The product\'s item key'),
  awb_number: d(v.string(), 'Its AWB'),
  ncm_code_before: d(nullable(v.string()), 'Its tariff code before the decision'),
  ncm_code: d(v.string(), 'The tariff code the broker decided'),
  customs_duty_before: d(nullable(v.number()), 'Its duty before'),
  customs_duty: d(nullable(v.number()), 'Its duty after'),
  customs_channel_before: d(nullable(v.string()), 'Its customs channel before'),
  customs_channel: d(nullable(v.string()), 'Its customs channel after'),
  reason: d(v.string(), 'Why, as the broker wrote it (at most 500 characters)'),
  decided_by: d(v.string(), 'Who decided'),
  decided_at: d(timestamp, 'When'),
});

export interface EventPayload {
  /** What makes it fire, for the docs and openapi.json. */
  when: string;
  data: v.GenericSchema;
  example: unknown;
}

const at = '2026-12-07T10:15:00.000Z';
const order = { id: 1042, order_number: 'WEB-1042', channel: 'web', status: 'processing', totals: { subtotal: 120, shipping: 10, tax: 0, total: 130, currency: 'USD' } };
const manifest = { manifest_number: 'MAN-2026-0001', batch_id: 'bat_01JEXAMPLE00000000000000', mawb_number: '123-45678901' };
const summary = { personal_items: 118, commercial_items: 2, prohibited_items: 0, amount_to_pay: 5840.25, currency: 'USD', total_awbs: 95, total_products: 120, review_pending: 3, review_at_stake: 210.4, amount_to_pay_ars: 7999682.44, exchange_rate: { rate: 1369.75, date: '2026-12-04', source: 'bcra' } };
const document = { id: 311, account_id: 7, document_type: 'invoice', state: 'uploaded', version: 1, file_name: 'invoice-0001.pdf', manifest_id: 'MAN-2026-0001', awb_number: 'AWB0000001' };

export const eventPayloads = {
  'order.created': {
    when: 'an order enters: created through the API or by a marketplace sync',
    data: v.strictObject({
      id: d(integer, 'Order id'),
      order_number: d(v.string(), 'Order number shown to the merchant'),
      channel: d(v.string(), 'Where it came from: `web` or a marketplace'),
      channel_order_id: d(nullable(v.string()), "The marketplace's own id of the order"),
      status: d(v.string(), 'Its status'),
      customer: d(v.strictObject({ name: d(v.string(), 'Name'), email: d(v.string(), 'Email') }), 'The buyer'),
      items: d(
        v.array(
          v.strictObject({
            id: d(integer, 'Item id'),
            sku: d(v.string(), 'SKU'),
            name: d(v.string(), 'Name'),
            quantity: d(integer, 'Quantity'),
            price: money('Unit price'),
            currency: d(v.string(), 'ISO 4217 code'),
          }),
        ),
        'The lines of the order',
      ),
      totals: d(
        v.strictObject({ subtotal: money('Sum of the items'), shipping: money('Shipping charged'), total: money('What the customer pays'), currency: d(v.string(), 'ISO 4217 code') }),
        'The order\'s money (spec 6.3)',
      ),
      created_at: d(timestamp, 'When the order was made'),
    }),
    example: {
      id: 1042,
      order_number: 'WEB-1042',
      channel: 'web',
      channel_order_id: null,
      status: 'pending',
      customer: { name: 'Ana Pérez', email: 'ana@example.com' },
      items: [{ id: 1, sku: 'TSHIRT-M', name: 'T-shirt M', quantity: 2, price: 60, currency: 'USD' }],
      totals: { subtotal: 120, shipping: 10, total: 130, currency: 'USD' },
      created_at: at,
    },
  },
  'order.updated': {
    when: "an order's status changed (by the API, a marketplace sync or its shipments' tracking), or a shipment was made for it",
    data: v.strictObject({
      ...orderSummary,
      previous_status: v.optional(d(v.string(), 'Its status before, when the status changed')),
      fulfillment_status: v.optional(d(v.string(), 'Its fulfillment status, when a shipment was made')),
      shipment_id: v.optional(d(integer, 'The shipment made, when one was')),
    }),
    example: { ...order, previous_status: 'pending' },
  },
  'order.cancelled': {
    when: 'an order was cancelled (by the API or its marketplace)',
    data: v.strictObject({
      ...orderSummary,
      cancelled_at: d(nullable(timestamp), 'When'),
      reason: d(nullable(v.string()), 'Why, as given'),
      voided_shipments: v.optional(d(v.array(integer), "The order's shipments, their labels voided by the cancel (present when cancelled through the API)")),
    }),
    example: { ...order, status: 'cancelled', cancelled_at: at, reason: 'customer request' },
  },
  'shipment.created': {
    when: 'a label was bought for an order: tracking is available',
    data: v.strictObject({
      shipment_id: d(integer, 'Shipment id'),
      order_id: d(integer, 'Its order'),
      carrier: d(v.string(), 'Carrier (fedex, ups, dhl, usps)'),
      service: d(v.string(), "The carrier's service"),
      tracking_number: d(v.string(), 'Tracking number'),
      label_url: d(v.string(), 'Where the label is'),
      estimated_delivery: d(nullable(v.string()), 'Estimated delivery date (YYYY-MM-DD); null when the carrier gives none (UPS and USPS may not)'),
      created_at: d(timestamp, 'When the label was made'),
    }),
    example: {
      shipment_id: 88,
      order_id: 1042,
      carrier: 'fedex',
      service: 'international_priority',
      tracking_number: '794612345678',
      label_url: 'https://api.example.com/api/v1/shipments/88/label',
      estimated_delivery: '2026-12-11',
      created_at: at,
    },
  },
  'shipment.delivered': {
    when: "a shipment's tracking reports it delivered",
    data: v.strictObject({
      shipment_id: d(integer, 'Shipment id'),
      order_id: d(integer, 'Its order'),
      carrier: d(v.string(), 'Carrier'),
      tracking_number: d(v.string(), 'Tracking number'),
      delivered_at: d(nullable(timestamp), 'When the carrier says it was delivered'),
    }),
    example: { shipment_id: 88, order_id: 1042, carrier: 'fedex', tracking_number: '794612345678', delivered_at: at },
  },
  'inventory.low_stock': {
    when: "a product's stock fell below its threshold (once per fall)",
    data: v.strictObject({
      product_id: d(integer, 'Product id'),
      sku: d(v.string(), 'SKU'),
      name: d(v.string(), 'Name'),
      current_stock: d(integer, 'Stock now'),
      threshold: d(integer, 'Its threshold'),
      warehouse_id: d(integer, 'Warehouse id (0 when none)'),
      warehouse_name: d(v.string(), 'Warehouse name'),
    }),
    example: { product_id: 17, sku: 'TSHIRT-M', name: 'T-shirt M', current_stock: 4, threshold: 5, warehouse_id: 2, warehouse_name: 'Miami' },
  },
  'manifest.processed': {
    when: "a processing run completes (a submission, an update that changed items, a tax-id correction), once per run. A broker's later review is `manifest.reviewed`",
    data: v.strictObject({ ...manifestRef, summary: manifestSummary }),
    example: { ...manifest, summary },
  },
  'manifest.processing_completed': {
    when: 'a processing run completes, once per run, just before `manifest.processed` (which carries the results): for following runs',
    data: v.strictObject({
      ...manifestRef,
      run_id: d(v.string(), 'The run (pipeline-status shows it)'),
      covers_all: d(v.boolean(), 'The run processed every item of the batch (a first run); false when it processed only the shipments an update or a tax-id correction changed'),
      pages: d(integer, 'Pages of at most 500 items the run processed'),
      started_at: d(timestamp, 'When the run started'),
      finished_at: d(timestamp, 'When it finished'),
    }),
    example: { ...manifest, run_id: 'run_01JEXAMPLE0000000000000', covers_all: true, pages: 1, started_at: '2026-12-07T10:14:38.000Z', finished_at: at },
  },
  'manifest.reviewed': {
    when: `a broker closed a batch whose results a review corrected: once per review (closing again announces nothing; reopening, correcting and closing announces the new revision). Lists the first ${reviewedProductsShown} products changed, newest first; \`decisions_path\` lists them all`,
    data: v.strictObject({
      ...manifestRef,
      revision: d(integer, 'The last revision of the review: the batch\'s results as corrected up to it'),
      previous_revision: d(integer, 'The revision the previous review announced (0 for the first)'),
      decisions: d(integer, 'Decisions in this review (revisions after `previous_revision`; a group decision is one)'),
      products: d(v.array(reviewedProduct), `The products this review changed, newest first, at most ${reviewedProductsShown}`),
      more_products: d(v.boolean(), 'More products were changed than `products` lists: page `decisions_path` down to `previous_revision`'),
      decisions_path: d(v.string(), 'GET it (scope review:read) for every decision, newest first, in cursor pages'),
      closed_at: d(timestamp, 'When the batch was closed'),
      closed_by: d(nullable(v.string()), 'Who closed it'),
      summary: manifestSummary,
    }),
    example: {
      ...manifest,
      revision: 3,
      previous_revision: 0,
      decisions: 3,
      products: [
        {
          revision: 3,
          item_key: 'line-7',
          awb_number: 'AWB0000003',
          ncm_code_before: '6109.90.00',
          ncm_code: '6109.10.00',
          customs_duty_before: 12.6,
          customs_duty: 10.8,
          customs_channel_before: 'A',
          customs_channel: 'V',
          reason: 'Cotton T-shirts, per the invoice',
          decided_by: 'ana@broker.example',
          decided_at: '2026-12-07T09:58:12.000Z',
        },
      ],
      more_products: false,
      decisions_path: `/api/v1/couriers/manifests/${manifest.batch_id}/review/decisions`,
      closed_at: at,
      closed_by: 'ana@broker.example',
      summary: { ...summary, review_pending: 0, review_at_stake: 0 },
    },
  },
  'manifest.invalid_cuit_detected': {
    when: 'the web-services stage closed with invalid tax ids or used-up quotas: one event per 500 flagged AWBs',
    data: v.strictObject({
      ...manifestRef,
      awbs: d(
        v.array(v.strictObject({ awb_number: d(v.string(), 'AWB'), tax_id: d(nullable(v.string()), 'The tax id given'), reason: d(v.string(), 'What is wrong with it') })),
        'The flagged AWBs of this part, at most 500',
      ),
      part: d(integer, 'This part (1-based)'),
      parts: d(integer, 'Parts in all'),
      total_awbs: d(integer, 'Flagged AWBs in all the parts'),
    }),
    example: { ...manifest, awbs: [{ awb_number: 'AWB0000077', tax_id: '20123456780', reason: 'invalid check digit' }], part: 1, parts: 1, total_awbs: 1 },
  },
  'manifest.total_due': {
    when: 'a processing run completes, once per run, just before `manifest.processing_completed` and `manifest.processed`',
    data: v.strictObject({ ...manifestRef, amount_to_pay: d(v.number(), 'Duties and taxes of the whole manifest'), currency: d(v.string(), 'Its currency') }),
    example: { ...manifest, amount_to_pay: 5840.25, currency: 'USD' },
  },
  'manifest.processing_failed': {
    when: 'a step of a run failed after its retries',
    data: v.strictObject({ ...manifestRef, stage: d(nullable(v.string()), 'The stage that failed (classification, webservices, ai, calculations), or null before the stages'), error: d(v.string(), 'What failed') }),
    example: { ...manifest, stage: 'calculations', error: 'tariff table unavailable' },
  },
  'document.uploaded': {
    when: 'a document was uploaded, a large upload completed, or a supersede made its new version',
    data: v.strictObject({ ...documentRef, supersedes: v.optional(d(integer, 'The id of the version it replaces, on supersede')) }),
    example: document,
  },
  'document.validated': {
    when: 'a document was validated',
    data: v.strictObject({ ...documentRef, validation_notes: d(nullable(v.string()), 'Notes given with the validation') }),
    example: { ...document, state: 'validated', validation_notes: null },
  },
  'document.approved': {
    when: 'a document was approved',
    data: v.strictObject(documentRef),
    example: { ...document, state: 'approved' },
  },
  'document.rejected': {
    when: 'a document was rejected',
    data: v.strictObject({ ...documentRef, rejection_reason: d(v.string(), 'Why') }),
    example: { ...document, state: 'rejected', rejection_reason: 'illegible scan' },
  },
  'document.superseded': {
    when: 'a newer version replaced the document (sent for the old version)',
    data: v.strictObject({
      ...documentRef,
      superseded_by: d(integer, 'The new version\'s id'),
      new_version: d(integer, 'The new version\'s number'),
      supersede_reason: d(nullable(v.string()), 'Why, as given'),
    }),
    example: { ...document, state: 'superseded', superseded_by: 312, new_version: 2, supersede_reason: 'corrected totals' },
  },
  'document.downloaded': {
    when: 'a document was downloaded',
    data: v.strictObject({ ...documentRef, downloaded_by: d(v.strictObject({ account_id: d(integer, 'Account'), token_id: d(integer, 'Token') }), 'Who downloaded it') }),
    example: { ...document, downloaded_by: { account_id: 7, token_id: 21 } },
  },
  'delivery.recorded': {
    when: 'a proof of delivery was recorded, one through the API or each of a bulk import (not when the same proof is sent again)',
    data: v.strictObject({
      awb_number: d(v.string(), 'The AWB delivered'),
      account_id: d(integer, 'The courier account'),
      manifest_id: d(v.string(), 'The manifest the AWB travelled on'),
      mawb_number: d(v.string(), 'The flight (master air waybill)'),
      batch_id: d(v.string(), 'The batch of the manifest'),
      delivered_at: d(timestamp, 'When it was delivered'),
      recipient: d(
        v.strictObject({ name: d(v.string(), "The recipient's name"), dni: d(v.string(), "The recipient's DNI, digits only"), relation: d(v.string(), 'Who the recipient is to the consignee') }),
        'Who received it',
      ),
      location: d(
        nullable(v.strictObject({ latitude: d(nullable(v.number()), 'Latitude, when given'), longitude: d(nullable(v.number()), 'Longitude, when given'), address: d(nullable(v.string()), 'Address, when given') })),
        'Where, when given; null when neither coordinates nor an address were',
      ),
      file: d(
        v.strictObject({
          file_name: d(v.string(), 'The file name as sent'),
          mime_type: d(v.string(), 'image/png, image/jpeg or application/pdf, by its content'),
          file_size: d(integer, 'Bytes'),
          checksum: d(v.string(), 'sha256:<hex> of the bytes kept'),
        }),
        'The signature or photo kept (GET /v1/deliveries for a download URL)',
      ),
      source: d(v.picklist(['api', 'bulk']), 'Recorded one at a time or in a bulk import'),
      recorded_at: d(timestamp, 'When it was recorded'),
      retain_until: d(timestamp, 'Kept, unchangeable, until then'),
    }),
    example: {
      awb_number: 'AWB0000077',
      account_id: 7,
      manifest_id: 'MAN-2026-1207',
      mawb_number: '045-12345675',
      batch_id: 'b-6f1c',
      delivered_at: '2026-12-07T17:30:00.000Z',
      recipient: { name: 'Ana Pérez', dni: '30123456', relation: 'titular' },
      location: { latitude: -34.6037, longitude: -58.3816, address: null },
      file: { file_name: 'firma.png', mime_type: 'image/png', file_size: 48213, checksum: 'sha256:' + '0'.repeat(64) },
      source: 'api',
      recorded_at: '2026-12-07T18:02:11.000Z',
      retain_until: '2031-12-07T18:02:11.000Z',
    },
  },
} satisfies Record<WebhookEventName, EventPayload>;

