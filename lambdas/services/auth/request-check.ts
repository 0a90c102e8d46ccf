import { now } from '../../infra/clock';
import { findTokenByHash, touchToken } from '../../infra/entities/accounts';
import type { Principal } from '../../core/auth/principal';
import { bearerToken, hashToken } from '../../core/auth/tokens';

/** The authorizer's reads and writes for one credential, at the moment it is judged. */
export interface RequestCheck {
  /**
   * The bearer token's principal (none for a missing, unknown or revoked token); its last use is
   * written alongside (once per authorizer answer: API Gateway keeps the answer for the
   * authorizer's cache time, so `last_used_at` is exact to that time).
   */
  principalOf(authorization: string | undefined): Promise<Principal | undefined>;
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
    async settled() {
      await Promise.all(touches);
    },
  };
}
