import { now } from '#infra/clock';
import { closeWindows, hit } from '#infra/entities/rate-windows';
import { minuteWindow } from '#core/auth/rate-limit';
import { authorizerCacheTtlSeconds, rateLimits } from '#catalog/rates';

/**
 * Counts a request in `key`'s current minute window (one atomic ADD) and answers the count with
 * it; `revoked` when the window was closed by the token's revocation.
 */
export async function countRequest(key: string): Promise<{ revoked: true } | { revoked?: undefined; hits: number; resetInSeconds: number; resetAt: number }> {
  const { window, resetInSeconds, resetAt, expiresAt } = minuteWindow(now());
  const hits = await hit(`${key}#${window}`, expiresAt);
  if (hits === null) return { revoked: true };
  return { hits, resetInSeconds, resetAt };
}

/**
 * Closes a revoked token's rate windows (issue 41): every group's window of this minute and of
 * the minutes the authorizer's cached answer can still reach (its TTL, plus one for the clocks of
 * two functions), so a request of the token changes nothing once the revocation has answered,
 * whatever API Gateway cached. After that the authorizer itself refuses the token. 15 groups x
 * 3 minutes: 45 items, two BatchWriteItems; they expire with the windows.
 */
export async function closeTokenWindows(tokenId: number, revokedAt: Date): Promise<void> {
  const first = minuteWindow(revokedAt).window;
  const minutes = Math.ceil(authorizerCacheTtlSeconds / 60) + 2;
  const keys = Object.keys(rateLimits).flatMap((group) => Array.from({ length: minutes }, (_, k) => `${tokenId}#${group}#${first + k}`));
  await closeWindows(keys, revokedAt.toISOString(), (first + minutes + 1) * 60);
}
