import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { rateLimits } from '../catalog-rates';
import { routeAccess, type RouteAccess } from '../catalog-access';
import { routeKey } from '../routing';
import { authorize } from '../core/auth/policy';
import type { Principal } from '../core/auth/principal';
import { rateHeaders } from '../core/auth/rate-limit';
import type { TokenRefusal } from '../core/auth/tokens';
import { checkRequest, type RequestCheck } from '../services/auth/request-check';
import { encodeContext, type AuthContext, type Denial } from './kit/auth-context';
import { logger, withLogKeys } from '../shared/logger';
import { requestIdOf } from './kit/request-id';
import { recordMetric } from '../shared/metrics';

// The routes' access rules as data (catalog-access.json), not the catalog: no route schema in this bundle.
const byKey = new Map<string, RouteAccess>(routeAccess.map((r) => [routeKey(r), r]));

/**
 * The REQUEST authorizer in front of every non-public route. It resolves the bearer token,
 * checks the route's roles and scopes and counts the token's rate window, then always lets the
 * request through with its verdict in the context: the handler answers a denial with the
 * service's own error body and request id (API Gateway's authorizer denials cannot carry either).
 */
export async function handler(
  event: APIGatewayRequestAuthorizerEventV2,
): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthContext>> {
  const route = byKey.get(event.routeKey);
  if (!route) return { isAuthorized: false, context: {} };
  const check = checkRequest();
  // Its lines carry the id the request's handler and its answer use.
  return withLogKeys({ requestId: requestIdOf(event.headers, event.requestContext?.requestId), route: event.routeKey }, async () => {
    try {
      const { principal, refusal } = await check.principalOf(event.headers?.authorization ?? event.headers?.Authorization);
      return await decide(route, principal, check, refusal);
    } finally {
      await check.settled();
    }
  });
}

async function decide(route: RouteAccess, principal: Principal | undefined, check: RequestCheck, refusal?: TokenRefusal): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthContext>> {
  const verdict = authorize(route, principal);
  // No principal: the 401 says why when the token expired (`error: token_expired`).
  if (!verdict.allow && verdict.status === 401 && refusal?.error === 'token_expired') return allow({ denial: { status: 401, message: refusal.message, extra: { error: refusal.error } } });
  if (!verdict.allow) return allow({ principal, denial: { status: verdict.status, message: verdict.message } });
  if (!route.rate || !principal) return allow({ principal });

  const limit = rateLimits[route.rate];
  const { hits, resetInSeconds, resetAt } = await check.count(`${principal.tokenId}#${route.rate}`);
  const headers = rateHeaders(limit, hits, resetAt);
  if (hits > limit) {
    const denial: Denial = {
      status: 429,
      message: `Rate limit of ${limit} requests per minute exceeded; retry in ${resetInSeconds} s.`,
      headers: { 'Retry-After': String(resetInSeconds) },
      // In the body too, as the seed system's 429 carries it: seconds until the window resets.
      extra: { retry_after: resetInSeconds },
    };
    logger.warn('rate limited', { tokenId: principal.tokenId, group: route.rate });
    recordMetric('RateLimited', 1, { by: route.rate });
    return allow({ principal, denial, rateHeaders: headers });
  }
  return allow({ principal, rateHeaders: headers });
}

function allow(c: Parameters<typeof encodeContext>[0]): APIGatewaySimpleAuthorizerWithContextResult<AuthContext> {
  return { isAuthorized: true, context: encodeContext(c) };
}
