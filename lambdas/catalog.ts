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

export const workers: WorkerDef[] = [];

export const eventRules: EventRuleDef[] = [];
