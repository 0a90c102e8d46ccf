/**
 * Every HTTP route, worker, queue, event rule and rate limit of the service, declared once.
 * The CDK (lib/) builds one Lambda per route and worker from this; the local twin mounts the same
 * handlers; the authorizer reads roles, scopes and rate groups from it; openapi.json is written
 * from it. Adding an endpoint is one entry here plus its handler module.
 *
 * Route handlers never import this file (it would drag every schema into every bundle); only the
 * authorizer, the fallback and the openapi function do, because they answer for every route.
 */
import type { EventRuleDef, QueueDef, RouteDef, WorkerDef } from './catalog-types';
import { CreateAccountBody, CreateTokenBody, ListTokensQuery } from './http/admin/schemas';
import { IdParams } from './http/kit/schemas';
import { CreateSubscriptionBody, DeliveriesQuery, DeliveryParams, RetryFailedBody, UpdateSubscriptionBody } from './http/webhooks/schemas';
import { webhookEventNames } from './core/webhooks/events';
import { dashboardRoutes } from './http/dashboard/routes';
import { Base64Supersede, Base64Upload, ListQuery, RejectBody, ReviewBody, UploadIdParams, UploadUrlBody } from './http/documents/schemas';

/** Requests per token, per group, per minute (spec section 8; groups the spec leaves open are decided in the README). */
export const rateLimits = {
  account: 60,
  admin: 120,
  'documents.upload': 30,
  'documents.read': 60,
  'documents.download': 60,
  'documents.workflow': 60,
  'couriers.submit': 60,
  'couriers.status': 120,
  'couriers.download': 30,
  webhooks: 60,
} as const;

/** SQS queues (each with its dead-letter queue) that workers consume. */
export const queues = {
  webhookFanout: { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  webhookDelivery: { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  marketplaceSync: { visibilityTimeoutSeconds: 900, maxReceiveCount: 3 },
} as const satisfies Record<string, QueueDef>;

export const routes: RouteDef[] = [
  {
    id: 'Health',
    method: 'GET',
    path: '/health',
    handler: 'http/system/health',
    summary: 'Liveness: 200 once the service answers',
    tag: 'system',
    auth: 'public',
  },
  {
    id: 'OpenApi',
    method: 'GET',
    path: '/openapi.json',
    handler: 'http/system/openapi',
    summary: 'This OpenAPI 3.1 document',
    tag: 'system',
    auth: 'public',
  },
  {
    id: 'Me',
    method: 'GET',
    path: '/v1/me',
    handler: 'http/account/me',
    summary: "The calling token's account, role and scopes",
    tag: 'account',
    auth: {},
    rate: 'account',
    uses: { table: ['GetItem'] },
  },
  {
    id: 'MyTokensList',
    method: 'GET',
    path: '/v1/me/tokens',
    handler: 'http/account/tokens',
    summary: "List the tokens of the caller's account (never their values)",
    tag: 'account',
    auth: {},
    rate: 'account',
    uses: { table: ['Query'] },
  },
  {
    id: 'MyTokensRevoke',
    method: 'DELETE',
    path: '/v1/me/tokens/{id}',
    handler: 'http/account/tokens',
    summary: "Revoke one of the caller's account's tokens",
    tag: 'account',
    auth: {},
    rate: 'account',
    uses: { table: ['Query', 'GetItem', 'UpdateItem'] },
    schemas: { params: IdParams },
  },
  {
    id: 'AdminAccountsCreate',
    method: 'POST',
    path: '/v1/admin/accounts',
    handler: 'http/admin/accounts',
    summary: 'Create a partner or broker account',
    tag: 'admin',
    auth: { roles: ['admin'] },
    rate: 'admin',
    uses: { table: ['PutItem', 'UpdateItem'] },
    schemas: { body: CreateAccountBody },
    successStatus: 201,
  },
  {
    id: 'AdminAccountsList',
    method: 'GET',
    path: '/v1/admin/accounts',
    handler: 'http/admin/accounts',
    summary: 'List accounts',
    tag: 'admin',
    auth: { roles: ['admin'] },
    rate: 'admin',
    uses: { table: ['Query'] },
  },
  {
    id: 'AdminAccountSigningSecret',
    method: 'POST',
    path: '/v1/admin/accounts/{id}/signing-secret',
    handler: 'http/admin/signing-secret',
    summary: "Make or rotate an account's manifest signing secret (shown once)",
    tag: 'admin',
    auth: { roles: ['admin'] },
    rate: 'admin',
    uses: { table: ['GetItem', 'UpdateItem'] },
    schemas: { params: IdParams },
    successStatus: 201,
  },
  {
    id: 'AdminTokensCreate',
    method: 'POST',
    path: '/v1/admin/tokens',
    handler: 'http/admin/tokens',
    summary: 'Issue a token for an account (the value is shown once)',
    tag: 'admin',
    auth: { roles: ['admin'] },
    rate: 'admin',
    uses: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
    schemas: { body: CreateTokenBody },
    successStatus: 201,
  },
  {
    id: 'AdminTokensList',
    method: 'GET',
    path: '/v1/admin/tokens',
    handler: 'http/admin/tokens',
    summary: 'List tokens, optionally of one account',
    tag: 'admin',
    auth: { roles: ['admin'] },
    rate: 'admin',
    uses: { table: ['Query'] },
    schemas: { query: ListTokensQuery },
  },
  {
    id: 'AdminTokensRevoke',
    method: 'DELETE',
    path: '/v1/admin/tokens/{id}',
    handler: 'http/admin/tokens',
    summary: 'Revoke a token',
    tag: 'admin',
    auth: { roles: ['admin'] },
    rate: 'admin',
    uses: { table: ['Query', 'GetItem', 'UpdateItem'] },
    schemas: { params: IdParams },
  },
  // Transport documents (spec 4.2)
  {
    id: 'DocumentsUpload',
    method: 'POST',
    path: '/v1/transport/documents/upload',
    handler: 'http/documents/upload',
    summary: 'Upload a document: multipart `file`, or JSON `file_base64` + `filename`; Idempotency-Key (UUID) optional',
    tag: 'documents',
    auth: {},
    rate: 'documents.upload',
    uses: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], bucket: [{ name: 'files', actions: ['PutObject', 'DeleteObject'] }], bus: true },
    schemas: { body: Base64Upload },
    successStatus: 201,
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    id: 'DocumentsUploadUrl',
    method: 'POST',
    path: '/v1/transport/documents/upload-url',
    handler: 'http/documents/upload-url',
    summary: 'Large files: declare the file and get a presigned POST straight to storage (15 minutes, declared size and type only)',
    tag: 'documents',
    auth: {},
    rate: 'documents.upload',
    uses: { table: ['PutItem'], bucket: [{ name: 'files', actions: ['PutObject'] }] },
    schemas: { body: UploadUrlBody },
    successStatus: 201,
  },
  {
    id: 'DocumentsUploadComplete',
    method: 'POST',
    path: '/v1/transport/documents/uploads/{uploadId}/complete',
    handler: 'http/documents/complete',
    summary: 'Large files: check the stored file against its declaration and register the document',
    tag: 'documents',
    auth: {},
    rate: 'documents.upload',
    uses: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      bucket: [{ name: 'files', actions: ['GetObject', 'DeleteObject', 'ListBucket'] }],
      bus: true,
    },
    schemas: { params: UploadIdParams },
    successStatus: 201,
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    id: 'DocumentsList',
    method: 'GET',
    path: '/v1/transport/documents',
    handler: 'http/documents/list',
    summary: 'List documents with filters and pagination',
    tag: 'documents',
    auth: {},
    rate: 'documents.read',
    uses: { table: ['Query'] },
    schemas: { query: ListQuery },
  },
  {
    id: 'DocumentsShow',
    method: 'GET',
    path: '/v1/transport/documents/{id}',
    handler: 'http/documents/show',
    summary: 'One document in detail form',
    tag: 'documents',
    auth: {},
    rate: 'documents.read',
    uses: { table: ['GetItem'] },
    schemas: { params: IdParams },
  },
  {
    id: 'DocumentsDownload',
    method: 'GET',
    path: '/v1/transport/documents/{id}/download',
    handler: 'http/documents/download',
    summary: 'A signed download URL valid for 60 minutes',
    tag: 'documents',
    auth: {},
    rate: 'documents.download',
    uses: { table: ['GetItem'], bucket: [{ name: 'files', actions: ['GetObject'] }], bus: true },
    schemas: { params: IdParams },
  },
  {
    id: 'DocumentsHistory',
    method: 'GET',
    path: '/v1/transport/documents/{id}/history',
    handler: 'http/documents/history',
    summary: 'The current version and every earlier one',
    tag: 'documents',
    auth: {},
    rate: 'documents.read',
    uses: { table: ['GetItem', 'Query'] },
    schemas: { params: IdParams },
  },
  ...(['validate', 'approve', 'reject'] as const).map(
    (action): RouteDef => ({
      id: `Documents${action[0].toUpperCase()}${action.slice(1)}`,
      method: 'PUT',
      path: `/v1/transport/documents/{id}/${action}`,
      handler: 'http/documents/review',
      summary: `${action[0].toUpperCase()}${action.slice(1)} a document (broker)`,
      tag: 'documents',
      auth: { roles: ['broker'] },
      rate: 'documents.workflow',
      uses: { table: ['GetItem', 'UpdateItem'], bus: true },
      schemas: { params: IdParams, body: action === 'reject' ? RejectBody : ReviewBody },
    }),
  ),
  {
    id: 'DocumentsSupersede',
    method: 'POST',
    path: '/v1/transport/documents/{id}/supersede',
    handler: 'http/documents/supersede',
    summary: 'Replace a document with a new version (multipart `file` or JSON `file_base64` + `filename`, optional `reason`)',
    tag: 'documents',
    auth: {},
    rate: 'documents.workflow',
    uses: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], bucket: [{ name: 'files', actions: ['PutObject', 'DeleteObject'] }], bus: true },
    schemas: { params: IdParams, body: Base64Supersede },
    successStatus: 201,
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    id: 'DocumentsDelete',
    method: 'DELETE',
    path: '/v1/transport/documents/{id}',
    handler: 'http/documents/delete',
    summary: 'Delete a document that is uploaded or rejected, with its file',
    tag: 'documents',
    auth: {},
    rate: 'documents.workflow',
    uses: { table: ['GetItem', 'DeleteItem'], bucket: [{ name: 'files', actions: ['DeleteObject'] }] },
    schemas: { params: IdParams },
  },
  // The webhook dashboard: a page at /dashboard, outside /api
  ...dashboardRoutes,
  // Webhook subscriptions (spec 4.8; no /v1 prefix, as the spec has it)
  ...(
    [
      ['WebhooksAvailableEvents', 'GET', '/webhook-subscriptions/available-events', 'available-events', 'Every event a subscription can name', [], {}],
      ['WebhooksList', 'GET', '/webhook-subscriptions', 'subscriptions', "The caller's subscriptions with their health", ['Query'], {}],
      ['WebhooksCreate', 'POST', '/webhook-subscriptions', 'subscriptions', 'Subscribe an endpoint to events (the signing secret is shown once)', ['PutItem', 'UpdateItem'], { body: CreateSubscriptionBody }],
      ['WebhooksShow', 'GET', '/webhook-subscriptions/{id}', 'subscription', 'One subscription with its health', ['GetItem'], { params: IdParams }],
      ['WebhooksUpdate', 'PUT', '/webhook-subscriptions/{id}', 'subscription', 'Change the URL or events, deactivate, or reactivate', ['GetItem', 'UpdateItem'], { params: IdParams, body: UpdateSubscriptionBody }],
      ['WebhooksDelete', 'DELETE', '/webhook-subscriptions/{id}', 'subscription', 'Delete a subscription', ['GetItem', 'DeleteItem'], { params: IdParams }],
      ['WebhooksTest', 'POST', '/webhook-subscriptions/{id}/test', 'test', 'Send a signed test delivery now', ['GetItem'], { params: IdParams }],
      ['WebhooksDeliveries', 'GET', '/webhook-subscriptions/{id}/deliveries', 'deliveries', 'The delivery log, newest first', ['GetItem', 'Query'], { params: IdParams, query: DeliveriesQuery }],
      ['WebhooksRetry', 'POST', '/webhook-subscriptions/{id}/deliveries/{delivery}/retry', 'retry', 'Send one delivery again now', ['GetItem', 'Query', 'UpdateItem'], { params: DeliveryParams }],
      ['WebhooksRetryFailed', 'POST', '/webhook-subscriptions/{id}/deliveries/retry-failed', 'retry-failed', 'Send every failed delivery (since a time) again', ['GetItem', 'Query'], { params: IdParams, body: RetryFailedBody }],
      ['WebhooksRotateSecret', 'POST', '/webhook-subscriptions/{id}/rotate-secret', 'rotate-secret', 'Issue a new signing secret (shown once)', ['GetItem', 'UpdateItem'], { params: IdParams }],
    ] as const
  ).map(
    ([id, method, path, module, summary, table, schemas]): RouteDef => ({
      id,
      method,
      path,
      handler: `http/webhooks/${module}`,
      summary,
      tag: 'webhooks',
      auth: {},
      rate: 'webhooks',
      uses: {
        table: [...table],
        ...(['WebhooksRetryFailed'].includes(id) ? { queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }] } : {}),
        ...(['WebhooksRetry'].includes(id) ? { queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }], scheduler: true } : {}),
      },
      schemas: schemas as RouteDef['schemas'],
      ...(method === 'POST' && module === 'subscriptions' ? { successStatus: 201 } : {}),
      ...(module === 'test' || module === 'retry' ? { timeoutSeconds: 20 } : {}),
    }),
  ),
];

/** The authorizer in front of every non-public route; it reads tokens and counts rate windows. */
export const authorizer: Pick<RouteDef, 'id' | 'handler' | 'uses'> = {
  id: 'Authorizer',
  handler: 'http/authorizer',
  uses: { table: ['GetItem', 'UpdateItem'] },
};

/** Answers every request no route matches: 404, or 405 when the path exists with other methods. */
export const fallback: Pick<RouteDef, 'id' | 'handler'> = {
  id: 'Fallback',
  handler: 'http/system/fallback',
};

export const workers: WorkerDef[] = [
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
    uses: { table: ['GetItem', 'UpdateItem'], queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }], scheduler: true },
  },
];

/** Every event a webhook can name goes from the bus to the fan-out queue. */
export const eventRules: EventRuleDef[] = [{ id: 'WebhookEvents', eventTypes: webhookEventNames, queue: 'webhookFanout' }];
