import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { rateLimits, routes } from '../catalog';
import { routeKey } from '../routing';
import type { RouteDef } from '../catalog-types';
import { authorize } from '../core/auth/policy';
import type { Principal } from '../core/auth/principal';
import { bearerToken, hashToken } from '../core/auth/tokens';
import { minuteWindow, rateHeaders } from '../core/auth/rate-limit';
import { findTokenByHash, touchToken } from '../infra/entities/accounts';
import { hit } from '../infra/entities/rate-windows';
import { now } from '../infra/clock';
import { encodeContext, type AuthContext, type Denial } from './kit/auth-context';
import { logger } from '../shared/logger';

const byKey = new Map<string, RouteDef>(routes.map((r) => [routeKey(r), r]));

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
  const at = now();
  const touches: Promise<void>[] = [];
  try {
    return await decide(route, await resolve(event, at, touches), at);
  } finally {
    await Promise.all(touches);
  }
}

async function decide(route: RouteDef, principal: Principal | undefined, at: Date): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthContext>> {
  const verdict = authorize(route, principal);
  if (!verdict.allow) return allow({ principal, denial: { status: verdict.status, message: verdict.message } });
  if (!route.rate || !principal) return allow({ principal });

  const limit = rateLimits[route.rate];
  const { window, resetInSeconds, resetAt, expiresAt } = minuteWindow(at);
  const hits = await hit(`${principal.tokenId}#${route.rate}#${window}`, expiresAt);
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
    return allow({ principal, denial, rateHeaders: headers });
  }
  return allow({ principal, rateHeaders: headers });
}

/** The token's principal; its last_used_at write runs alongside the rate count (`touches`). */
async function resolve(event: APIGatewayRequestAuthorizerEventV2, at: Date, touches: Promise<void>[]): Promise<Principal | undefined> {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  const token = bearerToken(header);
  if (!token) return undefined;
  const tokenHash = hashToken(token);
  const record = await findTokenByHash(tokenHash);
  if (!record || record.revokedAt) return undefined;
  touches.push(touchToken(tokenHash, at, record.lastUsedAt));
  return {
    accountId: record.accountId,
    tokenId: record.id,
    tokenName: record.name,
    email: record.email ?? null,
    role: record.role,
    scopes: record.scopes ?? [],
  };
}

function allow(c: Parameters<typeof encodeContext>[0]): APIGatewaySimpleAuthorizerWithContextResult<AuthContext> {
  return { isAuthorized: true, context: encodeContext(c) };
}
