import { now } from '#infra/clock';
import type { Principal } from '#core/auth/principal';
import { expiryRefusal, type TokenRefusal } from '#core/auth/tokens';

/**
 * A principal whose token has expired since the authorizer resolved it: the route kit asks this
 * of every request, so an expiry takes effect on the next call even while API Gateway serves a
 * cached authorizer answer. Only the clock and the rule: nothing else in every handler's bundle.
 */
export function principalRefusal(principal: Principal): TokenRefusal | undefined {
  return expiryRefusal(principal.tokenExpiresAt, now());
}
