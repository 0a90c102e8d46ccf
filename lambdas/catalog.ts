/**
 * Every HTTP route, worker, queue, event rule and rate limit of the service, declared once.
 * The routes are declared per area in `lambdas/http/<area>/routes.ts` (object literals, one per
 * route) and gathered here; workers, pipeline tasks and event rules are declared here.
 * The CDK (lib/) builds one Lambda per route and worker from this; the local twin mounts the same
 * handlers; the authorizer reads roles, scopes and rate groups from it; openapi.json is written
 * from it. Adding an endpoint is one entry in its area's routes.ts plus its handler module.
 *
 * Route handlers never import this file (it would drag every schema into every bundle); only the
 * authorizer, the fallback and the openapi function do, because they answer for every route.
 */
import type { EventRuleDef, PipelineTaskDef, RouteDef, WorkerDef } from './catalog-types';
import { manifestReprocessRequestedEvent, manifestSubmittedEvent } from './core/pipeline/events';
import { webhookEventNames } from './core/webhooks/events';
import { accountRoutes } from './http/account/routes';
import { adminDataRoutes, adminMetricsRoutes, adminRoutes } from './http/admin/routes';
import { couriersRoutes } from './http/couriers/routes';
import { customsRoutes } from './http/customs/routes';
import { dashboardRoutes } from './http/dashboard/routes';
import { documentsRoutes } from './http/documents/routes';
import { eventsRoutes } from './http/events/routes';
import { inventoryRoutes } from './http/inventory/routes';
import { manifestsRoutes } from './http/manifests/routes';
import { reviewRoutes } from './http/review/routes';
import { consoleRoutes } from './http/console/routes';
import { ordersRoutes } from './http/orders/routes';
import { shippingRoutes } from './http/shipping/routes';
import { storageRoutes } from './http/storage/routes';
import { systemRoutes } from './http/system/routes';
import { webhooksRoutes } from './http/webhooks/routes';

export { rateLimits } from './catalog-rates';
export { queues } from './catalog-queues';

/**
 * Every HTTP route, gathered from one `lambdas/http/<area>/routes.ts` per area. The order is the
 * order of openapi.json; the operator's tariff and migration routes follow the documents, as ever.
 */
export const routes: RouteDef[] = [
  ...Object.values(systemRoutes),
  ...Object.values(accountRoutes),
  ...Object.values(adminRoutes),
  ...Object.values(storageRoutes),
  ...Object.values(documentsRoutes),
  ...Object.values(adminDataRoutes),
  ...Object.values(adminMetricsRoutes),
  ...Object.values(couriersRoutes),
  ...Object.values(customsRoutes),
  ...Object.values(manifestsRoutes),
  ...Object.values(reviewRoutes),
  ...Object.values(dashboardRoutes),
  ...Object.values(consoleRoutes),
  ...Object.values(webhooksRoutes),
  ...Object.values(eventsRoutes),
  ...Object.values(ordersRoutes),
  ...Object.values(shippingRoutes),
  ...Object.values(inventoryRoutes),
];

/**
 * The authorizer in front of every non-public route. API Gateway answers a request without one of
 * `identitySource`'s headers with 401 itself (no function runs); otherwise it asks the authorizer,
 * which resolves the token to its principal (or a 401 denial), and keeps the answer for
 * `cacheTtlSeconds` per distinct credential: a revoked token stops working within that time. The
 * route's roles, scopes and rate window are judged by the route's own function on every request
 * (http/kit/route.ts), so the cached answer holds for every route.
 */
export const authorizer: Pick<RouteDef, 'id' | 'handler' | 'uses'> & { identitySource: readonly string[]; cacheTtlSeconds: number } = {
  id: 'Authorizer',
  handler: 'http/authorizer',
  uses: { table: ['GetItem', 'UpdateItem'] },
  identitySource: ['$request.header.Authorization'],
  cacheTtlSeconds: 60,
};

/** Answers every request no route matches: 404, or 405 when the path exists with other methods. */
export const fallback: Pick<RouteDef, 'id' | 'handler'> = {
  id: 'Fallback',
  handler: 'http/system/fallback',
};

export const workers: WorkerDef[] = [
  {
    id: 'MarketplaceSync',
    handler: 'workers/marketplace-sync',
    summary: 'Runs a queued marketplace sync (or, on the schedule\'s tick, starts one per connected account)',
    queue: 'marketplaceSync',
    batchSize: 1,
    timeoutSeconds: 900,
    memoryMb: 1024,
    uses: {
      // ConditionCheckItem: a new order's channel key is written only if no former code's key holds it.
      table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
      queues: [{ name: 'marketplaceSync', actions: ['SendMessage'] }],
      bus: true,
      secrets: 'read',
    },
  },
  {
    id: 'TrackingPoll',
    handler: 'workers/tracking-poll',
    summary: "Asks the carriers (fedex, ups, dhl, usps) for their shipments' tracking on the schedule's tick; moves them as tracking updates do",
    queue: 'trackingPoll',
    batchSize: 1,
    timeoutSeconds: 300,
    uses: {
      table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      queues: [{ name: 'trackingPoll', actions: ['SendMessage'] }],
      bus: true,
      secrets: 'read',
    },
  },
  {
    id: 'PipelineStart',
    handler: 'workers/pipeline-start',
    summary: 'manifest.submitted / manifest.reprocess_requested -> one state machine run per (batch, run)',
    queue: 'manifestPipeline',
    batchSize: 10,
    uses: { table: ['GetItem', 'UpdateItem'], pipeline: true },
  },
  {
    id: 'ManifestIntake',
    handler: 'workers/manifest-intake',
    summary: "Writes an accepted manifest's (or chunk's) items from its stored payload, then releases the batch to processing",
    queue: 'manifestIntake',
    batchSize: 1,
    // Writes are bulk work: two manifests written at once keep the table and the memory of one
    // process (the twin) within bounds; more submissions wait their turn on the queue.
    maxConcurrency: 2,
    timeoutSeconds: 900,
    memoryMb: 1769,
    uses: {
      table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
      bucket: [{ name: 'files', actions: ['GetObject'] }],
      bus: true,
    },
  },
  {
    id: 'WebhookFanout',
    handler: 'workers/webhook-fanout',
    summary: 'Bus event -> one delivery per matching active subscription',
    queue: 'webhookFanout',
    batchSize: 10,
    uses: { table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'], queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }] },
  },
  {
    id: 'WebhookDelivery',
    handler: 'workers/webhook-delivery',
    summary: 'One signed delivery attempt; failures scheduled at +1 min, +5 min, +30 min, +2 h, +24 h',
    queue: 'webhookDelivery',
    batchSize: 10,
    timeoutSeconds: 50,
    uses: { table: ['GetItem', 'UpdateItem'], queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }], scheduler: true, signingSecrets: { webhook: ['open', 'seal'] } },
  },
];

/** Every event a webhook can name goes to the fan-out queue; accepted manifests and tax-id corrections start pipeline runs. */
export const eventRules: EventRuleDef[] = [
  { id: 'WebhookEvents', eventTypes: webhookEventNames, queue: 'webhookFanout' },
  { id: 'ManifestPipeline', eventTypes: [manifestSubmittedEvent, manifestReprocessRequestedEvent], queue: 'manifestPipeline' },
];

const pipelineFiles = (actions: ('GetObject' | 'PutObject')[]) => [{ name: 'files' as const, actions }];

/**
 * The manifest pipeline's tasks (spec 3.3). The state machine (lib/pipeline.ts) and the twin's
 * runner (twin/pipeline.ts) invoke them in the order of `stageNames` (lambdas/core/pipeline/stages.ts).
 */
export const pipelineTasks = {
  prepare: {
    id: 'PipelinePrepare',
    handler: 'workers/pipeline/prepare',
    summary: 'Plan a run: the items without a current result, in pages that never split a shipment',
    uses: { table: ['GetItem', 'Query', 'UpdateItem'], bucket: pipelineFiles(['GetObject', 'PutObject']) },
    memoryMb: 1024,
    timeoutSeconds: 300,
  },
  stagePage: {
    id: 'PipelineStagePage',
    handler: 'workers/pipeline/stage-page',
    summary: 'One stage (classification, webservices, ai, calculations) over one page of items',
    uses: {
      // PutItem: the page's done-mark, written in one transaction with the stage's count.
      // BatchGetItem: the partner-code memory the ai stage reads (services/review).
      table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem'],
      bucket: pipelineFiles(['GetObject', 'PutObject']),
      bedrock: true,
    },
    memoryMb: 1024,
    timeoutSeconds: 300,
  },
  stageDone: {
    id: 'PipelineStageDone',
    handler: 'workers/pipeline/stage-done',
    summary: "Close a stage: mark it completed and report what it found (invalid tax ids)",
    uses: { table: ['GetItem', 'UpdateItem'], bucket: pipelineFiles(['GetObject']), bus: true },
    memoryMb: 512,
    timeoutSeconds: 120,
  },
  finish: {
    id: 'PipelineFinish',
    handler: 'workers/pipeline/finish',
    summary: 'Store the results in parts and the json, csv and xlsx downloads, complete the manifest with its summary, emit total_due and processing_completed',
    uses: { table: ['GetItem', 'UpdateItem'], bucket: pipelineFiles(['GetObject', 'PutObject']), bus: true },
    memoryMb: 1024,
    timeoutSeconds: 300,
  },
  failed: {
    id: 'PipelineFailed',
    handler: 'workers/pipeline/failed',
    summary: 'A step gave up after its retries: mark the manifest failed, emit processing_failed',
    uses: { table: ['GetItem', 'UpdateItem'], bus: true },
  },
} as const satisfies Record<string, PipelineTaskDef>;
