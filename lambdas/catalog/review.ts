import type { RouteDef } from './types';
import { BatchQueueQuery, ClassificationBody, ClassificationParams, GroupClassificationBody, GroupParams, InboxQuery, QuotaParams, QuotaQuery, ReviewDecisionsQuery, ReviewGroupsQuery, ReviewPathParams, ReviewQueueQuery, SearchQuery } from '#http/review/schemas';

export const ReviewQueue = {
  id: 'ReviewQueue',
  method: 'GET',
  path: '/v1/couriers/manifests/{manifest}/review',
  handler: 'http/review/queue',
  summary: "A processed batch's products in channel A or RO or below the review threshold, with reasons, candidates and the declared code (cursor pages)",
  tag: 'review',
  auth: { scopes: ['review:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'BatchGetItem', 'Query'], bucket: [{ name: 'files', actions: ['GetObject'] }], cursors: true },
  schemas: { params: ReviewPathParams, query: ReviewQueueQuery },
  memoryMb: 1024,
} satisfies RouteDef;

export const ReviewClassification = {
  id: 'ReviewClassification',
  method: 'PUT',
  path: '/v1/couriers/manifests/{manifest}/products/{awb}/classification',
  handler: 'http/review/classify',
  summary: "Confirm or correct a product's NCM (broker): its shipment's duties, taxes and channel are computed again, the decision is recorded and the partner-code memory learns it",
  tag: 'review',
  auth: { roles: ['broker'], scopes: ['review:write'] },
  rate: 'couriers.status',
  uses: {
    // UpdateItem and PutItem: the batch, the decision and the memory in one transaction;
    // BatchWriteItem: a group decision's records a crash left unwritten (issue 40), written first.
    table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
    bucket: [{ name: 'files', actions: ['GetObject', 'PutObject'] }],
  },
  schemas: { params: ClassificationParams, body: ClassificationBody },
  memoryMb: 1024,
} satisfies RouteDef;

export const ReviewGroups = {
  id: 'ReviewGroups',
  method: 'GET',
  path: '/v1/couriers/manifests/{manifest}/review/groups',
  handler: 'http/review/groups',
  summary: 'The products awaiting review grouped by normalized description and declared code, largest first, with their candidates (cursor pages)',
  tag: 'review',
  auth: { scopes: ['review:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'BatchGetItem', 'Query'], bucket: [{ name: 'files', actions: ['GetObject'] }], cursors: true },
  schemas: { params: ReviewPathParams, query: ReviewGroupsQuery },
  memoryMb: 1024,
} satisfies RouteDef;

export const ReviewGroupClassification = {
  id: 'ReviewGroupClassification',
  method: 'PUT',
  path: '/v1/couriers/manifests/{manifest}/review/groups/{group}/classification',
  handler: 'http/review/classify-group',
  summary: "Decide the NCM of every product of a review group at once (broker): each shipment computed again, each product recorded as its own decision",
  tag: 'review',
  auth: { roles: ['broker'], scopes: ['review:write'] },
  rate: 'couriers.status',
  uses: {
    // UpdateItem: the batch's move; BatchWriteItem (PutItem): each product's decision and memory after it.
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
    bucket: [{ name: 'files', actions: ['GetObject', 'PutObject'] }],
  },
  schemas: { params: GroupParams, body: GroupClassificationBody },
  memoryMb: 1024,
  timeoutSeconds: 29,
} satisfies RouteDef;

export const ReviewDecisions = {
  id: 'ReviewDecisions',
  method: 'GET',
  path: '/v1/couriers/manifests/{manifest}/review/decisions',
  handler: 'http/review/decisions',
  summary: "The broker's classification decisions on a batch, newest first (cursor pages)",
  tag: 'review',
  auth: { scopes: ['review:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'Query'], cursors: true },
  schemas: { params: ReviewPathParams, query: ReviewDecisionsQuery },
} satisfies RouteDef;

export const QuotaShipments = {
  id: 'QuotaShipments',
  method: 'GET',
  path: '/v1/couriers/quota/{tax_id}/shipments',
  handler: 'http/review/quota',
  summary: "A tax id's personal shipments of a year (the quota ledger's slots) and the batches that hold them",
  tag: 'review',
  auth: { scopes: ['manifests:read'] },
  rate: 'couriers.status',
  uses: { table: ['GetItem', 'Query'] },
  schemas: { params: QuotaParams, query: QuotaQuery },
} satisfies RouteDef;

export const ReviewBatches = {
  id: 'ReviewBatches',
  method: 'GET',
  path: '/v1/couriers/review/batches',
  handler: 'http/review/batches',
  summary: "Every account's manifest batches, newest first (broker or admin): the broker's queue (filter status; cursor pages)",
  tag: 'review',
  auth: { roles: ['broker', 'admin'], scopes: ['review:read'] },
  rate: 'couriers.status',
  uses: { table: ['Query'], cursors: true },
  schemas: { query: BatchQueueQuery },
} satisfies RouteDef;

export const ReviewInbox = {
  id: 'ReviewInbox',
  method: 'GET',
  path: '/v1/couriers/review/inbox',
  handler: 'http/review/inbox',
  summary: "What needs the broker's action across every courier (broker or admin): documents awaiting validation and approval, processed batches not closed grouped by flight, oldest first, with the products awaiting review, what they pay and the risk flags (flights in cursor pages)",
  tag: 'review',
  auth: { roles: ['broker', 'admin'], scopes: ['review:read'] },
  rate: 'couriers.status',
  uses: {
    // UpdateItem: a batch processed before issue 40 gets its review counts kept once counted.
    table: ['GetItem', 'Query', 'UpdateItem'],
    bucket: [{ name: 'files', actions: ['GetObject'] }],
    cursors: true,
  },
  schemas: { query: InboxQuery },
  memoryMb: 1024,
} satisfies RouteDef;

export const ReviewSearch = {
  id: 'ReviewSearch',
  method: 'GET',
  path: '/v1/couriers/review/search',
  handler: 'http/review/search',
  summary:
    'One field across every account (broker or admin): a guía/MAWB, manifest number, AWB or tax id by prefix; a consignee, a document or a product description by words. Results grouped by kind, each with its console link',
  tag: 'review',
  auth: { roles: ['broker', 'admin'], scopes: ['review:read'] },
  rate: 'couriers.status',
  uses: { table: ['Query', 'GetItem', 'BatchGetItem'], cursors: true },
  schemas: { query: SearchQuery },
} satisfies RouteDef;

/** The broker's review of processed batches and the quota view (issue 33; the console's Review and Quota screens). */
export const reviewRoutes = { ReviewInbox, ReviewBatches, ReviewSearch, ReviewQueue, ReviewClassification, ReviewGroups, ReviewGroupClassification, ReviewDecisions, QuotaShipments };
