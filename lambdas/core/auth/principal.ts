import type { Role, Scope } from '#catalog/types';

/** Who is calling: resolved from the bearer token by the authorizer. */
export interface Principal {
  accountId: number;
  tokenId: number;
  /** The token's name and contact: who acted, as recorded on documents (uploader, approver). */
  tokenName: string;
  email: string | null;
  role: Role;
  scopes: Scope[];
  /**
   * When the token stops working, if it does: carried with the principal so a route refuses it
   * after that moment even when the authorizer's answer was given (and cached) before it.
   */
  tokenExpiresAt?: string;
}

/** Admins and brokers work across accounts; partners see only their own account's records. */
export function seesAllAccounts(p: Principal): boolean {
  return p.role === 'admin' || p.role === 'broker';
}

/** True when the caller may read or change a record owned by `accountId`. */
export function canAccess(p: Principal, accountId: number): boolean {
  return seesAllAccounts(p) || p.accountId === accountId;
}
