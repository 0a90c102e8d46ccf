import type { RouteDef, WorkerDef } from './types';
import { CancelBody, ConnectBody, CreateOrderBody, FulfillBody, ListOrdersQuery, MarketplaceParams, ShipBody, SyncBody, UpdateOrderBody } from '#http/orders/schemas';
import { IdParams } from '#http/kit/schemas';

/**
 * Every function that changes a listed field of an order may ask for the account's order snapshot
 * (infra/entities/orders.ts `takeVersion`); the order list asks when it could not use it.
 */
export const viewsQueue = { name: 'orderViews', actions: ['SendMessage'] } as const;

export const OrdersList = {
  id: 'OrdersList',
  method: 'GET',
  path: '/v1/orders',
  handler: 'http/orders/list',
  summary: 'Orders of every channel, filtered, searched and paginated',
  tag: 'orders',
  auth: { scopes: ['orders:read'] },
  rate: 'orders.read',
  // The files bucket: the account's list snapshot (views/orders/<account>.json.gz, written by the
  // OrderViews worker); when it cannot be used, the list asks the worker for one.
  uses: { table: ['GetItem', 'BatchGetItem', 'Query'], bucket: [{ name: 'files', actions: ['GetObject'] }], queues: [viewsQueue] },
  schemas: { query: ListOrdersQuery },
  memoryMb: 1024,
} satisfies RouteDef;

export const OrdersCreate = {
  id: 'OrdersCreate',
  method: 'POST',
  path: '/v1/orders',
  handler: 'http/orders/create',
  summary: 'A web-store order (channel web); the service computes the totals; Idempotency-Key (UUID) optional',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], bus: true, queues: [viewsQueue] },
  schemas: { body: CreateOrderBody },
  successStatus: 201,
} satisfies RouteDef;

export const OrdersShow = {
  id: 'OrdersShow',
  method: 'GET',
  path: '/v1/orders/{id}',
  handler: 'http/orders/show',
  summary: 'An order in detail form, with shipments and timeline',
  tag: 'orders',
  auth: { scopes: ['orders:read'] },
  rate: 'orders.read',
  uses: { table: ['GetItem'] },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const OrdersUpdate = {
  id: 'OrdersUpdate',
  method: 'PUT',
  path: '/v1/orders/{id}',
  handler: 'http/orders/update',
  summary: 'Change status (where the channel allows it), notes, or the shipping address (before fulfillment)',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], bus: true, queues: [viewsQueue] },
  schemas: { params: IdParams, body: UpdateOrderBody },
} satisfies RouteDef;

export const OrdersShip = {
  id: 'OrdersShip',
  method: 'POST',
  path: '/v1/orders/{id}/ship',
  handler: 'http/orders/ship',
  summary: 'Create a shipment: tracking number from the carrier and a 4x6 PDF label; Idempotency-Key (UUID) optional',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: {
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    bucket: [{ name: 'files', actions: ['PutObject', 'DeleteObject'] }],
    bus: true,
    // The account's carrier credentials (fedex, ups, dhl, usps), read to buy the label.
    secrets: 'read',
    queues: [viewsQueue],
  },
  schemas: { params: IdParams, body: ShipBody },
  successStatus: 201,
  memoryMb: 1024,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const OrdersFulfill = {
  id: 'OrdersFulfill',
  method: 'POST',
  path: '/v1/orders/{id}/fulfill',
  handler: 'http/orders/fulfill',
  summary: 'Record a shipment made outside the service, with its tracking number',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], bus: true, queues: [viewsQueue] },
  schemas: { params: IdParams, body: FulfillBody },
} satisfies RouteDef;

export const OrdersCancel = {
  id: 'OrdersCancel',
  method: 'POST',
  path: '/v1/orders/{id}/cancel',
  handler: 'http/orders/cancel',
  summary: "Cancel an unfulfilled order, or one whose labels are all unused (voided with the carrier)",
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  // The carrier credentials: unused labels are voided with the carrier (issue 18).
  uses: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], bus: true, secrets: 'read', queues: [viewsQueue] },
  timeoutSeconds: 29,
  schemas: { params: IdParams, body: CancelBody },
} satisfies RouteDef;

export const OrdersShipments = {
  id: 'OrdersShipments',
  method: 'GET',
  path: '/v1/orders/{id}/shipments',
  handler: 'http/orders/shipments',
  summary: 'The shipments of an order',
  tag: 'orders',
  auth: { scopes: ['orders:read'] },
  rate: 'orders.read',
  uses: { table: ['GetItem'] },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const OrdersSync = {
  id: 'OrdersSync',
  method: 'POST',
  path: '/v1/orders/sync',
  handler: 'http/orders/sync',
  summary: 'Start a marketplace sync of the connected (or named) channels',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['GetItem', 'Query', 'PutItem', 'DeleteItem'], queues: [{ name: 'marketplaceSync', actions: ['SendMessage'] }] },
  schemas: { body: SyncBody },
  successStatus: 202,
} satisfies RouteDef;

export const OrdersSyncStatus = {
  id: 'OrdersSyncStatus',
  method: 'GET',
  path: '/v1/orders/sync/status',
  handler: 'http/orders/sync-status',
  summary: 'The last sync with per-channel counters, and the next scheduled one',
  tag: 'orders',
  auth: { scopes: ['orders:read'] },
  rate: 'orders.read',
  uses: { table: ['Query'] },
} satisfies RouteDef;

export const MarketplacesList = {
  id: 'MarketplacesList',
  method: 'GET',
  path: '/v1/orders/marketplaces',
  handler: 'http/orders/marketplaces-list',
  summary: "The account's marketplace connections (never their credentials)",
  tag: 'orders',
  auth: { scopes: ['orders:read'] },
  rate: 'orders.read',
  uses: { table: ['Query'] },
} satisfies RouteDef;

export const MarketplacesConnect = {
  id: 'MarketplacesConnect',
  method: 'PUT',
  path: '/v1/orders/marketplaces/{channel}',
  handler: 'http/orders/marketplaces',
  summary: 'Connect a marketplace: its base URL and credentials, kept encrypted',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['PutItem', 'DeleteItem'], secrets: 'write' },
  schemas: { params: MarketplaceParams, body: ConnectBody },
} satisfies RouteDef;

export const MarketplacesDisconnect = {
  id: 'MarketplacesDisconnect',
  method: 'DELETE',
  path: '/v1/orders/marketplaces/{channel}',
  handler: 'http/orders/marketplaces-disconnect',
  summary: 'Disconnect a marketplace and delete its credentials',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['DeleteItem'], secrets: 'write' },
  schemas: { params: MarketplaceParams },
} satisfies RouteDef;

/** Orders and marketplaces (spec 4.1, 2.1): GET needs `orders:read`, every other method `orders:write`. */
export const ordersRoutes = { OrdersList, OrdersCreate, OrdersShow, OrdersUpdate, OrdersShip, OrdersFulfill, OrdersCancel, OrdersShipments, OrdersSync, OrdersSyncStatus, MarketplacesList, MarketplacesConnect, MarketplacesDisconnect };

export const MarketplaceSync = {
  id: 'MarketplaceSync',
  handler: 'workers/orders/marketplace-sync',
  summary: 'Runs a queued marketplace sync (or, on the schedule\'s tick, starts one per connected account)',
  queue: 'marketplaceSync',
  batchSize: 1,
  timeoutSeconds: 900,
  memoryMb: 1024,
  uses: {
    // ConditionCheckItem: a new order's channel key is written only if no former code's key holds it.
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
    queues: [viewsQueue, { name: 'marketplaceSync', actions: ['SendMessage'] }],
    bus: true,
    secrets: 'read',
  },
} satisfies WorkerDef;

export const OrderViews = {
  id: 'OrderViews',
  handler: 'workers/orders/order-views',
  summary: "Brings an account's order snapshot (what a new function's order list starts from) up to the account's version",
  queue: 'orderViews',
  batchSize: 10,
  // Two at once: two snapshots of one account written together are both right, the later one wins.
  maxConcurrency: 2,
  timeoutSeconds: 120,
  memoryMb: 1024,
  uses: {
    table: ['GetItem', 'Query', 'UpdateItem'],
    bucket: [{ name: 'files', actions: ['GetObject', 'PutObject'] }],
    queues: [viewsQueue],
  },
} satisfies WorkerDef;

export const ordersWorkers = { MarketplaceSync, OrderViews };
