import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import type { TokenRefusal } from '#core/auth/tokens';
import { checkRequest } from '#services/auth/request-check';
import { encodeContext, type AuthContext, type Denial } from './kit/auth-context';
import { logger, withLogKeys } from '#shared/logger';
import { requestIdOf } from './kit/request-id';
import { timingSafeEqual } from 'node:crypto';

/**
 * The REQUEST authorizer in front of every non-public route (lambdas/catalog/index.ts `authorizer`).
 * API Gateway calls it only for a request that carries every header of the identity source
 * (a request without a token is answered 401 by API Gateway itself) and keeps its answer for the
 * catalog's `cacheTtlSeconds` per credential, for every route: so the answer depends on the
 * credential alone. It resolves the bearer token to its principal and always lets the request
 * through with its verdict in the context; the route's function answers a denial with the
 * service's own error body and request id (API Gateway's authorizer denials carry neither), and
 * judges the route's roles, scopes and rate window itself on every request (http/kit/route.ts).
 *
 * Behind CloudFront (a stage with edge protection), ORIGIN_VERIFY holds the value CloudFront adds
 * as `X-Origin-Verify`. A request that skips CloudFront does not get here at all (the origin
 * domain's mutual TLS refuses it, lib/edge.ts); this check is the second lock, refusing one that
 * somehow did.
 */
export async function handler(
  event: APIGatewayRequestAuthorizerEventV2,
): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthContext>> {
  const check = checkRequest();
  return withLogKeys({ requestId: requestIdOf(event.headers, event.requestContext?.requestId), route: event.routeKey }, async () => {
    try {
      if (!fromOrigin(event.headers?.['x-origin-verify'])) {
        logger.warn('request did not come through the edge');
        return allow({ denial: { status: 403, message: 'Call the API through its domain name.' } });
      }
      const { principal, refusal } = await check.principalOf(event.headers?.authorization ?? event.headers?.Authorization);
      if (!principal) return allow({ denial: unauthorized(refusal) });
      return allow({ principal });
    } finally {
      await check.settled();
    }
  });
}

function fromOrigin(given: string | undefined): boolean {
  const expected = process.env.ORIGIN_VERIFY;
  if (!expected) return true;
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** No principal: the 401 says why (a malformed header, an unknown or revoked token, or `error: token_expired`). */
function unauthorized(refusal: TokenRefusal | undefined): Denial {
  if (refusal?.error === 'token_expired') return { status: 401, message: refusal.message, extra: { error: refusal.error } };
  return { status: 401, message: refusal?.message ?? 'A valid bearer token is required.' };
}

function allow(c: Parameters<typeof encodeContext>[0]): APIGatewaySimpleAuthorizerWithContextResult<AuthContext> {
  return { isAuthorized: true, context: encodeContext(c) };
}
