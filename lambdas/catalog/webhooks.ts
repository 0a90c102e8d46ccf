import type { EventRuleDef, RouteDef, WorkerDef } from './types';
import { webhookEventNames } from '#core/webhooks/events';
import { CreateSubscriptionBody, DeliveriesQuery, DeliveryParams, EventsQuery, RetryFailedBody, UpdateSubscriptionBody } from '#http/webhooks/schemas';
import { IdParams } from '#http/kit/schemas';

export const WebhooksAvailableEvents = {
  id: 'WebhooksAvailableEvents',
  method: 'GET',
  path: '/webhook-subscriptions/available-events',
  handler: 'http/webhooks/available-events',
  summary: 'Every event a subscription can name',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:read'] },
  rate: 'webhooks',
  uses: { table: [] },
} satisfies RouteDef;

export const WebhooksList = {
  id: 'WebhooksList',
  method: 'GET',
  path: '/webhook-subscriptions',
  handler: 'http/webhooks/subscriptions-list',
  summary: "The caller's subscriptions with their health",
  tag: 'webhooks',
  auth: { scopes: ['webhooks:read'] },
  rate: 'webhooks',
  uses: { table: ['Query'] },
} satisfies RouteDef;

export const WebhooksCreate = {
  id: 'WebhooksCreate',
  method: 'POST',
  path: '/webhook-subscriptions',
  handler: 'http/webhooks/subscriptions',
  summary: 'Subscribe an endpoint to events (the signing secret is shown once)',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:write'] },
  rate: 'webhooks',
  uses: { table: ['PutItem', 'UpdateItem'], signingSecrets: { webhook: ['seal'] } },
  schemas: { body: CreateSubscriptionBody },
  successStatus: 201,
} satisfies RouteDef;

export const WebhooksShow = {
  id: 'WebhooksShow',
  method: 'GET',
  path: '/webhook-subscriptions/{id}',
  handler: 'http/webhooks/subscription',
  summary: 'One subscription with its health',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:read'] },
  rate: 'webhooks',
  uses: { table: ['GetItem'] },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const WebhooksUpdate = {
  id: 'WebhooksUpdate',
  method: 'PUT',
  path: '/webhook-subscriptions/{id}',
  handler: 'http/webhooks/subscription-update',
  summary: 'Change the URL or events, deactivate, or reactivate',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:write'] },
  rate: 'webhooks',
  uses: { table: ['GetItem', 'UpdateItem'] },
  schemas: { params: IdParams, body: UpdateSubscriptionBody },
} satisfies RouteDef;

export const WebhooksDelete = {
  id: 'WebhooksDelete',
  method: 'DELETE',
  path: '/webhook-subscriptions/{id}',
  handler: 'http/webhooks/subscription-delete',
  summary: 'Delete a subscription',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:write'] },
  rate: 'webhooks',
  uses: { table: ['GetItem', 'DeleteItem'] },
  schemas: { params: IdParams },
} satisfies RouteDef;

export const WebhooksTest = {
  id: 'WebhooksTest',
  method: 'POST',
  path: '/webhook-subscriptions/{id}/test',
  handler: 'http/webhooks/test',
  summary: 'Send a signed test delivery now',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:write'] },
  rate: 'webhooks',
  // Signs with the secret (open); seals one stored in clear before issue 31 on the way (seal, UpdateItem).
  uses: { table: ['GetItem', 'UpdateItem'], signingSecrets: { webhook: ['open', 'seal'] } },
  schemas: { params: IdParams },
  timeoutSeconds: 20,
} satisfies RouteDef;

export const WebhooksDeliveries = {
  id: 'WebhooksDeliveries',
  method: 'GET',
  path: '/webhook-subscriptions/{id}/deliveries',
  handler: 'http/webhooks/deliveries',
  summary: 'The delivery log, newest first',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:read'] },
  rate: 'webhooks',
  uses: { table: ['GetItem', 'Query'] },
  schemas: { params: IdParams, query: DeliveriesQuery },
} satisfies RouteDef;

export const WebhooksRetry = {
  id: 'WebhooksRetry',
  method: 'POST',
  path: '/webhook-subscriptions/{id}/deliveries/{delivery}/retry',
  handler: 'http/webhooks/retry',
  summary: 'Send one delivery again now',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:write'] },
  rate: 'webhooks',
  uses: { table: ['GetItem', 'Query', 'UpdateItem'], queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }], scheduler: true, signingSecrets: { webhook: ['open', 'seal'] } },
  schemas: { params: DeliveryParams },
  timeoutSeconds: 20,
} satisfies RouteDef;

export const WebhooksRetryFailed = {
  id: 'WebhooksRetryFailed',
  method: 'POST',
  path: '/webhook-subscriptions/{id}/deliveries/retry-failed',
  handler: 'http/webhooks/retry-failed',
  summary: 'Send every failed delivery (since a time) again',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:write'] },
  rate: 'webhooks',
  uses: { table: ['GetItem', 'Query'], queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }] },
  schemas: { params: IdParams, body: RetryFailedBody },
} satisfies RouteDef;

export const WebhooksRotateSecret = {
  id: 'WebhooksRotateSecret',
  method: 'POST',
  path: '/webhook-subscriptions/{id}/rotate-secret',
  handler: 'http/webhooks/rotate-secret',
  summary: 'Issue a new signing secret (shown once)',
  tag: 'webhooks',
  auth: { scopes: ['webhooks:write'] },
  rate: 'webhooks',
  uses: { table: ['GetItem', 'UpdateItem'], signingSecrets: { webhook: ['seal'] } },
  schemas: { params: IdParams },
} satisfies RouteDef;

/** Webhook subscriptions (spec 4.8; no /v1 prefix, as the spec has it). */
export const webhooksRoutes = { WebhooksAvailableEvents, WebhooksList, WebhooksCreate, WebhooksShow, WebhooksUpdate, WebhooksDelete, WebhooksTest, WebhooksDeliveries, WebhooksRetry, WebhooksRetryFailed, WebhooksRotateSecret };

export const WebhookFanout = {
  id: 'WebhookFanout',
  handler: 'workers/webhooks/fanout',
  summary: 'Bus event -> one delivery per matching active subscription',
  queue: 'webhookFanout',
  batchSize: 10,
  uses: { table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'], queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }] },
} satisfies WorkerDef;

export const WebhookDelivery = {
  id: 'WebhookDelivery',
  handler: 'workers/webhooks/delivery',
  summary: 'One signed delivery attempt; failures scheduled at +1 min, +5 min, +30 min, +2 h, +24 h',
  queue: 'webhookDelivery',
  batchSize: 10,
  timeoutSeconds: 50,
  uses: { table: ['GetItem', 'UpdateItem'], queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }], scheduler: true, signingSecrets: { webhook: ['open', 'seal'] } },
} satisfies WorkerDef;

/** Every event a webhook can name goes to the fan-out queue. */
export const WebhookEvents = { id: 'WebhookEvents', eventTypes: webhookEventNames, queue: 'webhookFanout' } satisfies EventRuleDef;

export const webhooksWorkers = { WebhookFanout, WebhookDelivery };

export const EventsList = {
  id: 'EventsList',
  method: 'GET',
  path: '/v1/events',
  handler: 'http/webhooks/events',
  summary: "The account's events of the last 30 days, each as its deliveries send it (newest or oldest first, by cursor)",
  tag: 'events',
  auth: { scopes: ['events:read'] },
  rate: 'events',
  uses: { table: ['Query'], cursors: true },
  schemas: { query: EventsQuery },
} satisfies RouteDef;

/** The events feed (an extension: the spec has no way to pull events). */
export const eventsRoutes = { EventsList };
