import { rateLimits } from '#catalog/rates';
import { routeAccess, type RouteAccess } from '#catalog/access';
import { routeKey } from '#catalog/routing';
import { authorize } from '#core/auth/policy';
import type { Principal } from '#core/auth/principal';
import { rateHeaders } from '#core/auth/rate-limit';
import { countRequest } from '#services/auth/rate-window';
import { logger } from '#shared/logger';
import { recordMetric } from '#shared/metrics';
import type { Denial } from './auth-context';

// The routes' access rules as data (lambdas/catalog/access.json), not the catalog: no route schema in a bundle.
const byKey = new Map<string, RouteAccess>(routeAccess.map((r) => [routeKey(r), r]));

/**
 * What the route's own function judges on every request, after the authorizer's cached verdict
 * on the credential: the route's roles and scopes, then the token's rate window for the route's
 * group (one atomic counter write, refused once the token's revocation closed the window: 401
 * `token_revoked` on the next request, whatever the authorizer's cache holds). A request over its limit is a denial with `Retry-After` and
 * `retry_after`; an allowed one carries the rate headers of its answer.
 */
export async function gate(key: string, principal: Principal): Promise<{ denial?: Denial; headers?: Record<string, string> }> {
  const route = byKey.get(key);
  if (!route) return { denial: { status: 403, message: 'This route takes no token.' } };
  const verdict = authorize(route, principal);
  if (!verdict.allow) return { denial: { status: verdict.status, message: verdict.message } };
  if (!route.rate) return {};

  const limit = rateLimits[route.rate];
  const counted = await countRequest(`${principal.tokenId}#${route.rate}`);
  if (counted.revoked) return { denial: { status: 401, message: 'This token was revoked. Ask for a new token.', extra: { error: 'token_revoked' } } };
  const { hits, resetInSeconds, resetAt } = counted;
  const headers = rateHeaders(limit, hits, resetAt);
  if (hits <= limit) return { headers };
  logger.warn('rate limited', { tokenId: principal.tokenId, group: route.rate });
  recordMetric('RateLimited', 1, { by: route.rate });
  return {
    headers,
    denial: {
      status: 429,
      message: `Rate limit of ${limit} requests per minute exceeded; retry in ${resetInSeconds} s.`,
      headers: { 'Retry-After': String(resetInSeconds) },
      // In the body too, as the seed system's 429 carries it: seconds until the window resets.
      extra: { retry_after: resetInSeconds },
    },
  };
}
