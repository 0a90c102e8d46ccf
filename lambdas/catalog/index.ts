/**
 * Every HTTP route, worker, pipeline task, queue, event rule and rate limit of the service,
 * declared once in this folder: one file per area (`lambdas/catalog/<area>.ts`), each entry an
 * exported constant `satisfies` its type (RouteDef, WorkerDef, PipelineTaskDef, EventRuleDef in
 * types.ts), gathered per area in a record (`ordersRoutes`, `ordersWorkers`) and here.
 * The CDK (lib/) builds one Lambda per route and worker from this; the local twin mounts the same
 * handlers; the authorizer reads roles, scopes and rate groups from access.json, which npm test
 * checks against it; openapi.json is written from it. Adding an endpoint is one entry in its
 * area's file plus its handler module. A handler imports its own entry from its area's file (one
 * constant each, so its bundle carries only its own schemas).
 *
 * Route handlers never import this file (it would drag every schema into every bundle); only the
 * authorizer, the fallback and the openapi function do, because they answer for every route.
 */
import type { EventRuleDef, RouteDef, WorkerDef } from './types';
import { ManifestPipeline, pipelineTasks, pipelineWorkers } from './pipeline';
import { authRoutes } from './auth';
import { authorizerCacheTtlSeconds } from './rates';
import { adminDataRoutes, adminMetricsRoutes, adminRoutes } from './admin';
import { alternativeManifestsRoutes, manifestsRoutes, manifestsWorkers } from './manifests';
import { customsRoutes, customsWorkers } from './customs';
import { dashboardRoutes } from './dashboard';
import { documentsRoutes } from './documents';
import { deliveriesRoutes } from './deliveries';
import { inventoryRoutes } from './inventory';
import { reviewRoutes } from './review';
import { consoleRoutes } from './console';
import { ordersRoutes, ordersWorkers } from './orders';
import { shippingRoutes, shippingWorkers } from './shipping';
import { manifestFilesRoutes } from './manifest-files';
import { systemRoutes } from './system';
import { WebhookEvents, eventsRoutes, webhooksRoutes, webhooksWorkers } from './webhooks';

export { rateLimits } from './rates';
export { queues } from './queues';

/**
 * Every HTTP route, gathered from one `lambdas/catalog/<area>.ts` per area. The order is the
 * order of openapi.json; the operator's tariff and migration routes follow the documents, as ever.
 */
export const routes: RouteDef[] = [
  ...Object.values(systemRoutes),
  ...Object.values(authRoutes),
  ...Object.values(adminRoutes),
  ...Object.values(manifestFilesRoutes),
  ...Object.values(documentsRoutes),
  ...Object.values(deliveriesRoutes),
  ...Object.values(adminDataRoutes),
  ...Object.values(adminMetricsRoutes),
  ...Object.values(manifestsRoutes),
  ...Object.values(customsRoutes),
  ...Object.values(alternativeManifestsRoutes),
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
 * `cacheTtlSeconds` per distinct credential (the authorizer then refuses a revoked token). The
 * route's roles, scopes and rate window are judged by the route's own function on every request
 * (http/kit/route.ts), so the cached answer holds for every route, and a revocation closes the
 * token's rate windows for that time, so a revoked token is refused on its next request.
 */
export const authorizer: Pick<RouteDef, 'id' | 'handler' | 'uses'> & { identitySource: readonly string[]; cacheTtlSeconds: number } = {
  id: 'Authorizer',
  handler: 'http/authorizer',
  uses: { table: ['GetItem', 'UpdateItem'] },
  identitySource: ['$request.header.Authorization'],
  cacheTtlSeconds: authorizerCacheTtlSeconds,
};

/** Answers every request no route matches: 404, or 405 when the path exists with other methods. */
export const fallback: Pick<RouteDef, 'id' | 'handler'> = {
  id: 'Fallback',
  handler: 'http/system/fallback',
};

/** Every queue worker, gathered from its area's file as the routes are. */
export const workers: WorkerDef[] = [
  ...Object.values(ordersWorkers),
  ...Object.values(shippingWorkers),
  ...Object.values(pipelineWorkers),
  ...Object.values(manifestsWorkers),
  ...Object.values(webhooksWorkers),
  ...Object.values(customsWorkers),
];

export const eventRules: EventRuleDef[] = [WebhookEvents, ManifestPipeline];

export { pipelineTasks };
