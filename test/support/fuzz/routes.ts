import * as v from 'valibot';
import type { RouteDef } from '#catalog/types';
import { UploadFields as DocumentUploadFields, SupersedeFields } from '#http/documents/schemas';
import { UploadFields as StorageUploadFields } from '#http/manifest-files/schemas';
import { excelSlugs } from '#core/manifests/excel/slugs';
import { formerChannels, syncChannels } from '#core/orders/marketplace';
import type { World } from './world';

/**
 * What the fuzz knows of each route beyond the catalog: which record a path parameter names
 * (so valid requests use real ids of account `a`), the multipart form a route also takes, how a
 * schema-valid body is given real references (an account that exists, a warehouse, the local
 * webhook receiver), and the rules a handler checks beyond its schema.
 */

/** The kind of record each path parameter names, by route. */
export function paramKinds(route: RouteDef): Record<string, string> {
  const p = route.path;
  const kinds: Record<string, string> = {};
  for (const [, name] of p.matchAll(/\{(\w+)\}/g)) {
    kinds[name] =
      name === 'uploadId' ? (p.includes('/storage/') ? 'storageUpload' : 'documentUpload')
      : name === 'courier' ? 'courier'
      : name === 'idempotencyKey' ? 'submissionKey'
      : name === 'baseIdempotencyKey' ? 'chunkKey'
      : name === 'manifest' ? 'manifest'
      : name === 'batch' || name === 'batchId' ? 'batch'
      : name === 'delivery' ? 'delivery'
      : name === 'channel' ? 'channel'
      : name === 'sku' ? 'sku'
      : name === 'asset' ? 'asset'
      : name === 'mawb' ? 'flight'
      : p.startsWith('/v1/me/tokens') ? 'myToken'
      : p.startsWith('/v1/admin/tokens') ? 'token'
      : p.startsWith('/v1/admin/accounts') ? 'account'
      : p.startsWith('/v1/transport/documents') ? 'document'
      : p.startsWith('/webhook-subscriptions') ? 'subscription'
      : p.startsWith('/v1/orders') ? 'order'
      : p.startsWith('/v1/shipping/shipments') ? 'shipment'
      : p.startsWith('/v1/warehouses') ? 'warehouse'
      : 'unknown';
  }
  return kinds;
}

/** Values every account may name (not records of `a`): a namespace, not a tenancy question. */
export const sharedPools: Record<string, string[]> = {
  courier: ['default', 'default', ...excelSlugs],
  // A former code (mercadolibre) is an alias the path takes too.
  channel: [...syncChannels, ...formerChannels],
  asset: ['app.js', 'app.css'],
};

/** Kinds whose ids name one account's records: another account must get 404 or 403 for them. */
export const tenantKinds = new Set(['flight', 'myToken', 'document', 'documentUpload', 'storageUpload', 'submissionKey', 'chunkKey', 'manifest', 'batch', 'subscription', 'delivery', 'order', 'shipment']);

/** Routes whose handler reads the raw body: what else than JSON they take. */
export const forms: Record<string, { fields: v.GenericSchema; file: 'document' | 'manifestFile' | 'workbook' }> = {
  DocumentsUpload: { fields: DocumentUploadFields, file: 'document' },
  DocumentsSupersede: { fields: SupersedeFields, file: 'document' },
  ManifestStorageUpload: { fields: StorageUploadFields, file: 'manifestFile' },
  CouriersSubmit: { fields: v.object({ mawbNumber: v.pipe(v.string(), v.minLength(1), v.maxLength(50)) }), file: 'workbook' },
};

/** Routes that feed manifest intake: account `a` signs them (X-Signature). */
export const signedRoutes = new Set(['CouriersSubmit', 'ManifestsCreate']);

/** Routes that take a CSV body (the tariff import). */
export const csvRoutes = new Set(['AdminTariffImport']);

/**
 * Rules a handler checks beyond its schema, against data or files the schema cannot see: a
 * schema-valid request may be refused 422 naming one of these fields (and only these), or with
 * one of these statuses. Each is documented in docs/ on the route's page.
 */
export const beyondSchema: Record<string, { fields?: string[]; statuses?: number[]; why: string }> = {
  AdminTokensCreate: { fields: ['account_id', 'role', 'scopes', 'expires_at'], why: 'the account must exist, the role must be the one of its kind, the scopes ones its role may hold, and expires_at an instant with its zone in the next 2 years' },
  AdminTariffImport: { why: 'CSV lines are checked by the importer' },
  AdminExchangeRatesPut: { fields: ['date', 'rate'], statuses: [409], why: 'the date in the path is a real day not after today; a day already holding another rate is 409 (docs/operators/exchange-rates.md)' },
  AdminExchangeRatesList: { fields: ['to'], why: 'to on or after from, at most 366 days' },
  AdminMigrateChannelCodes: { fields: ['cursor'], why: 'a cursor the previous call answered' },
  AdminMigrateSigningSecrets: { fields: ['cursor'], why: 'a cursor the previous call answered' },
  AdminMigrateTokenScopes: { fields: ['cursor'], why: 'a cursor the previous call answered' },
  EventsList: { fields: ['after', 'since'], why: 'a cursor the feed answered (meta.next_cursor), signed; since with order=asc and without after' },
  ManifestStorageUpload: { fields: ['file', 'file_name'], why: 'the file itself: type by its bytes, readable, the extension' },
  ManifestStorageUploadUrl: { fields: ['file_name'], statuses: [413], why: 'an allowed extension; the 40 MB limit is 413' },
  ManifestStorageUploadComplete: { fields: ['file', 'file_size', 'checksum'], why: 'the stored file must match its declaration' },
  DocumentsUpload: { fields: ['file', 'filename'], statuses: [400, 413], why: 'the file itself: base64, type by its bytes, 10 MB' },
  DocumentsUploadUrl: { fields: ['filename'], statuses: [413], why: 'an allowed extension; the 10 MB limit is 413' },
  DocumentsUploadComplete: { fields: ['file', 'file_size', 'checksum'], why: 'the stored file must match its declaration' },
  DocumentsSupersede: { fields: ['file', 'filename'], statuses: [400, 413], why: 'the file itself, as for uploads' },
  DeliveriesRecord: { fields: ['awb_number', 'file_base64', 'delivered_at'], statuses: [400, 413], why: "an AWB of the account's manifests; delivered_at not in the future; the file itself: base64, a PNG, JPEG or PDF by its bytes, 4 MB (docs/partners/deliveries.md)" },
  DeliveriesList: { fields: ['cursor'], why: 'a cursor the previous page answered (signed)' },
  DeliveriesBulkUploadUrl: { statuses: [413], why: 'the CSV at most 1 MB, the ZIP 50 MB (docs/partners/deliveries.md)' },
  DocumentsDelete: { statuses: [403], why: 'a document is deleted only while uploaded or rejected (docs/brokers/documents.md, Workflow)' },
  CouriersSubmit: {
    fields: ['courier', 'file', 'batchId', 'mawbNumber', 'manifestNumber', '_chunk_metadata'],
    statuses: [422],
    why: 'the slug, the workbook, a batch of the account (422 unknown_batch), chunks that add up and agree with the first one',
  },
  WebhooksCreate: { fields: ['endpoint_url'], why: 'the endpoint address policy (a URL, https, no private address outside the twin)' },
  WebhooksUpdate: { fields: ['endpoint_url'], why: 'the endpoint address policy' },
  OrdersCreate: { fields: ['discount'], why: 'the discount may not exceed the order' },
  OrdersUpdate: { fields: ['status', 'shipping_address'], why: "the channel's status transitions; the address only before fulfillment" },
  OrdersShip: { fields: ['carrier', 'service', 'warehouse_id', 'packages', 'items', 'shipping_address.phone'], why: 'a carrier adapter, its services and a connected account, a warehouse (with a phone for the external carriers), lines of the order' },
  OrdersFulfill: { fields: ['items'], why: 'lines of the order, not more than is left' },
  OrdersSync: { fields: ['channels'], why: 'only connected marketplaces' },
  MarketplacesConnect: { fields: ['base_url', 'credentials'], why: "the marketplace's own API hosts; the credential fields the channel's connector reads" },
  ShippingQuotes: { fields: ['carriers', 'declared_value', 'hs_code'], why: 'a connected carrier account; with include_ddp the declared value and a description or tariff code' },
  CarriersConnect: { fields: ['client_id', 'client_secret', 'account_number', 'crid', 'mailer_id'], why: "the fields each carrier needs (and no other carrier's), its account number's form" },
  InventorySet: { fields: ['warehouse_id'], why: 'the warehouse must exist' },
  CouriersQuotaCheck: { fields: ['tax_id'], why: 'a valid CUIT, CUIL or DNI' },
  CouriersClientInfoUpdate: { fields: ['tax_id'], why: 'a valid CUIT, CUIL or DNI' },
  ReviewClassification: { fields: ['ncm_code', 'item_key'], why: "a row of the tariff table in force; the product of an AWB that has several (docs/brokers/review.md)" },
  ReviewQueue: { fields: ['cursor'], why: 'a cursor the previous page answered (signed)' },
  ReviewDecisions: { fields: ['cursor'], why: 'a cursor the previous page answered' },
  AdminAccountTariffDecisions: { fields: ['cursor'], why: 'a cursor the previous page answered (signed)' },
  ReviewBatches: { fields: ['cursor'], why: 'a cursor the previous page answered' },
  ReviewInbox: { fields: ['cursor'], why: 'a cursor the previous page answered (a place among the flights)' },
  ReviewGroups: { fields: ['cursor'], why: 'a cursor the previous page answered (a place among the groups)' },
  ReviewSearch: { fields: ['cursor'], why: 'a cursor the previous page of the same search answered' },
  ReviewGroupClassification: { fields: ['ncm_code'], why: 'a row of the tariff table in force (docs/brokers/review.md)' },
  QuotaShipments: { fields: ['tax_id'], why: 'a valid CUIT, CUIL or DNI' },
};

/** Path values a JSON body goes with: the JSON manifest slug (Excel slugs take multipart, JSON there is 422 on file). */
export const jsonParams: Record<string, Record<string, string>> = {
  CouriersSubmit: { courier: 'default' },
};

/** Statuses a schema-valid request may get on any route: an id that names nothing, a state conflict, a closed batch. */
export const validRefusals = new Set([404, 409, 410, 423]);

const pick = <T>(xs: readonly T[], n: number) => xs[n % xs.length];

/**
 * Gives a schema-valid body the references that make it succeed: real ids of `a`'s records, the
 * local webhook receiver, a PDF. Half of the valid requests get this; the other half stay as the
 * schema made them. The result must still be schema-valid (the runner checks).
 */
export function withReferences(routeId: string, body: Record<string, unknown>, params: Record<string, string>, w: World, n: number): Record<string, unknown> {
  const b = { ...body };
  switch (routeId) {
    case 'AdminTokensCreate': {
      const [id, role] = pick([[w.a.accountId, 'partner'], [w.b.accountId, 'broker'], [w.c.accountId, 'partner']] as const, n);
      return { ...b, account_id: id, role };
    }
    case 'DocumentsUpload':
    case 'DocumentsSupersede':
      return { ...b, file_base64: w.files.pdf.toString('base64'), filename: pick(['guia.pdf', 'scan.PDF', 'Guía ñ.pdf'], n) };
    case 'DocumentsUploadUrl':
      return { ...b, filename: 'grande.pdf', file_size: 1 + (n % 10_000_000) };
    case 'DeliveriesRecord':
      return { ...b, awb_number: pick(w.pools.awb, n), file_base64: w.files.pdf.toString('base64') };
    case 'ManifestStorageUploadUrl':
      return { ...b, file_name: pick(['m.json', 'm.xlsx', 'm.xls'], n), file_size: 1 + (n % 40_000_000) };
    case 'WebhooksCreate':
    case 'WebhooksUpdate':
      return b.endpoint_url === undefined && routeId === 'WebhooksUpdate' ? b : { ...b, endpoint_url: w.receiverUrl };
    case 'OrdersCreate':
      return { ...b, discount: 0 };
    case 'OrdersShip': {
      const items = w.orderItems.get(params.id) ?? [];
      const lines = items.slice(0, 1 + (n % Math.max(1, items.length))).map((id) => ({ order_item_id: id, quantity: 1 }));
      return { ...b, carrier: 'despacho', service: pick(['standard', 'express', 'economy'], n), warehouse_id: 1, packages: [{ weight: 1, length: 10, width: 10, height: 10, items: lines.length ? lines : [{ order_item_id: 1, quantity: 1 }] }] };
    }
    case 'OrdersFulfill': {
      const { items: _drop, ...rest } = b;
      return rest;
    }
    case 'InventorySet':
      return { ...b, warehouse_id: 1 };
    case 'TrackingUpdates':
      return { ...b, tracking_number: pick(w.pools.trackingNumber ?? ['DSP00000000422'], n) };
    case 'CouriersBatchStatus':
      return { ...b, manifests: [pick(w.pools.manifest, n), pick(w.pools.batch, n)] };
    case 'CouriersQuotaCheck':
    case 'CouriersClientInfoCanEdit':
    case 'CouriersClientInfoUpdate':
      return { ...b, awb_number: pick(w.pools.awb, n) };
    case 'CouriersSubmit':
      return b.batchId === undefined ? b : { ...b, batchId: pick(w.pools.batch, n) };
    default:
      return b;
  }
}
