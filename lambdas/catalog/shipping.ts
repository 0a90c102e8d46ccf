import { viewsQueue } from './orders';
import type { RouteDef, WorkerDef } from './types';
import { IdParams } from '#http/kit/schemas';
import { TrackingUpdateBody } from '#http/orders/schemas';
import { CarrierAccountBody, CarrierParams, QuoteBody } from '#http/shipping/schemas';

export const ShipmentLabel = {
  id: 'ShipmentLabel',
  method: 'GET',
  path: '/v1/shipping/shipments/{id}/label',
  handler: 'http/shipping/label',
  summary: "A shipment's 4x6 PDF label, to the order's account",
  tag: 'orders',
  auth: { scopes: ['shipping:read'] },
  rate: 'orders.read',
  uses: { table: ['GetItem'], bucket: [{ name: 'files', actions: ['GetObject'] }] },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const TrackingUpdates = {
  id: 'TrackingUpdates',
  method: 'POST',
  path: '/v1/shipping/tracking-updates',
  handler: 'http/shipping/tracking',
  summary: "A carrier's tracking update by tracking number (delivered -> shipment.delivered)",
  tag: 'orders',
  auth: { scopes: ['shipping:write'] },
  rate: 'orders.write',
  uses: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], bus: true, queues: [viewsQueue] },
  schemas: { body: TrackingUpdateBody },
} satisfies RouteDef;

export const CarriersList = {
  id: 'CarriersList',
  method: 'GET',
  path: '/v1/shipping/carriers',
  handler: 'http/shipping/carriers-list',
  summary: "The account's carrier accounts (never their secrets)",
  tag: 'orders',
  auth: { scopes: ['shipping:read'] },
  rate: 'orders.read',
  uses: { secrets: 'read' },
} satisfies RouteDef;

export const CarriersConnect = {
  id: 'CarriersConnect',
  method: 'PUT',
  path: '/v1/shipping/carriers/{carrier}',
  handler: 'http/shipping/carriers',
  summary: 'Connect a carrier account (fedex, ups, dhl, usps): its credentials, kept encrypted',
  tag: 'orders',
  auth: { scopes: ['shipping:write'] },
  rate: 'orders.write',
  uses: { secrets: 'write' },
  schemas: { params: CarrierParams, body: CarrierAccountBody },
} satisfies RouteDef;

export const CarriersDisconnect = {
  id: 'CarriersDisconnect',
  method: 'DELETE',
  path: '/v1/shipping/carriers/{carrier}',
  handler: 'http/shipping/carriers-disconnect',
  summary: 'Disconnect a carrier account and delete its credentials',
  tag: 'orders',
  auth: { scopes: ['shipping:write'] },
  rate: 'orders.write',
  uses: { secrets: 'write' },
  schemas: { params: CarrierParams },
} satisfies RouteDef;

export const ShippingQuotes = {
  id: 'ShippingQuotes',
  method: 'POST',
  path: '/v1/shipping/quotes',
  handler: 'http/shipping/quotes',
  summary: "Rates of the connected carriers (fedex, ups, dhl, usps) for a route and packages, cheapest first; with include_ddp, AR duties and taxes",
  tag: 'orders',
  auth: { scopes: ['shipping:read'] },
  rate: 'orders.read',
  // The carrier credentials, and the tariff table the landed-cost calculation reads.
  uses: { secrets: 'read', table: ['GetItem', 'Query'], bedrock: true },
  schemas: { body: QuoteBody },
  timeoutSeconds: 29,
} satisfies RouteDef;

/** Shipment labels and carrier tracking updates (spec 2.2): GET needs `orders:read`, every other method `orders:write`. */
export const shippingRoutes = { ShipmentLabel, TrackingUpdates, CarriersList, CarriersConnect, CarriersDisconnect, ShippingQuotes };

export const TrackingPoll = {
  id: 'TrackingPoll',
  handler: 'workers/shipping/tracking-poll',
  summary: "Asks the carriers (fedex, ups, dhl, usps) for their shipments' tracking on the schedule's tick; moves them as tracking updates do",
  queue: 'trackingPoll',
  batchSize: 1,
  timeoutSeconds: 300,
  uses: {
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    queues: [viewsQueue, { name: 'trackingPoll', actions: ['SendMessage'] }],
    bus: true,
    secrets: 'read',
  },
} satisfies WorkerDef;

export const shippingWorkers = { TrackingPoll };
