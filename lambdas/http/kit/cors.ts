/**
 * The CORS policy, declared once: API Gateway's preflight (lib/api.ts), the twin's preflight and
 * the headers every handler answers with all read it. Origins come from CORS_ORIGINS / context.
 */
export const corsPolicy = {
  allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Signature', 'X-Request-Id'],
  exposeHeaders: ['X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  maxAgeSeconds: 600,
} as const;
