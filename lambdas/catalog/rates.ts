/** Requests per token, per group, per minute (spec section 8; groups the spec leaves open are decided in docs/partners/errors-and-limits.md). */
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
  events: 120,
  storage: 30,
  'orders.read': 600,
  'orders.write': 120,
  'customs.quotes': 30,
} as const;

/** How long API Gateway keeps the authorizer's answer per credential (catalog/index.ts `authorizer`); here so a route's bundle reads it without the catalog. */
export const authorizerCacheTtlSeconds = 60;
