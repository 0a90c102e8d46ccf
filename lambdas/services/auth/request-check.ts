import { now } from '../../infra/clock';
import { findTokenByHash, touchToken } from '../../infra/entities/accounts';
import { hit } from '../../infra/entities/rate-windows';
import type { Principal } from '../../core/auth/principal';
import { bearerToken, hashToken } from '../../core/auth/tokens';
import { minuteWindow } from '../../core/auth/rate-limit';

/** The authorizer's reads and writes for one request, all at the moment the request is judged. */
export interface RequestCheck {
  /** The bearer token's principal (none for a missing, unknown or revoked token); its last use is written alongside. */
  principalOf(authorization: string | undefined): Promise<Principal | undefined>;
  /** Counts the request in `key`'s current minute window. */
  count(key: string): Promise<{ hits: number; resetInSeconds: number; resetAt: number }>;
  /** Settles the last-use writes `principalOf` started. */
  settled(): Promise<void>;
}

export function checkRequest(): RequestCheck {
  const at = now();
  const touches: Promise<void>[] = [];
  return {
    async principalOf(authorization) {
      const token = bearerToken(authorization);
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
    },
    async count(key) {
      const { window, resetInSeconds, resetAt, expiresAt } = minuteWindow(at);
      const hits = await hit(`${key}#${window}`, expiresAt);
      return { hits, resetInSeconds, resetAt };
    },
    async settled() {
      await Promise.all(touches);
    },
  };
}
