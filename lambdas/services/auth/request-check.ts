import { now } from '#infra/clock';
// The token's read and writes without ElectroDB: the Authorizer's bundle carries none of it (decisions.md 27).
import { readToken, touchToken, writeOutScopes } from '#infra/entities/auth/token-raw';
import { legacyScopes } from '#catalog/types';
import type { Principal } from '#core/auth/principal';
import { bearerToken, hashToken, malformedAuthorization, tokenRefusal, type TokenRefusal } from '#core/auth/tokens';

/** The authorizer's reads and writes for one credential, at the moment it is judged. */
export interface RequestCheck {
  /**
   * The bearer token's principal, or why there is none (a missing, unknown, revoked or expired
   * token: core/auth/tokens.ts `tokenRefusal`); a working token's last use is written alongside
   * (once per authorizer answer: API Gateway keeps the answer for the authorizer's cache time, so
   * `last_used_at` is exact to that time).
   */
  principalOf(authorization: string | undefined): Promise<{ principal: Principal; refusal?: undefined } | { principal?: undefined; refusal: TokenRefusal }>;
  /** Settles the last-use writes `principalOf` started. */
  settled(): Promise<void>;
}


export function checkRequest(): RequestCheck {
  const at = now();
  const touches: Promise<void>[] = [];
  return {
    async principalOf(authorization) {
      const token = bearerToken(authorization);
      if (!token) return { refusal: malformedAuthorization(authorization) };
      const tokenHash = hashToken(token);
      const record = await readToken(tokenHash);
      const refusal = tokenRefusal(record, at);
      if (refusal || !record) return { refusal: refusal! };
      touches.push(touchToken(tokenHash, at, record.lastUsedAt));
      // A token issued before every route named a scope keeps what it could do: written out once.
      const scopes = record.scopesVersion === 2 ? (record.scopes ?? []) : legacyScopes(record.scopes ?? [], record.role);
      if (record.scopesVersion !== 2) touches.push(writeOutScopes(tokenHash, scopes).then(() => undefined));
      const principal: Principal = {
        accountId: record.accountId,
        tokenId: record.id,
        tokenName: record.name,
        email: record.email ?? null,
        role: record.role,
        scopes,
        ...(record.expiresAt ? { tokenExpiresAt: record.expiresAt } : {}),
      };
      return { principal };
    },
    async settled() {
      await Promise.all(touches);
    },
  };
}
