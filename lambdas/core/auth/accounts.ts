/** Accounts and their API tokens as the rules and views read them; infra/entities/auth.ts stores them. */
import type { Role, Scope } from '#catalog/types';

export const accountKinds = ['partner', 'broker', 'operator'] as const;
export type AccountKind = (typeof accountKinds)[number];

export interface Account {
  id: number;
  name: string;
  kind: AccountKind;
  /**
   * The HMAC key partners sign manifest submissions with (X-Signature; shown once when made), as
   * stored: ciphertext bound to this account (infra/sealed-secrets.ts). Only intake opens it.
   */
  sealedSigningSecret?: string;
  /** The plain key of an item written before issue 31, until it is sealed. */
  legacySigningSecret?: string;
  /**
   * The account's consent that the broker's tariff decisions on its products be exported as labeled
   * items (docs/tariff/data.md), recorded by the operator with when it was given or withdrawn.
   */
  sharesTariffDecisions?: boolean;
  tariffConsentAt?: string;
  /** Where the consent is written (an agreement's reference), as the operator recorded it. */
  tariffConsentReference?: string;
  createdAt: string;
  updatedAt: string;
}

/** Whether the account has a manifest signing secret (sealed, or in clear from before issue 31). */
export const hasSigningSecret = (a: Account) => a.sealedSigningSecret !== undefined || a.legacySigningSecret !== undefined;

export interface TokenRecord {
  id: number;
  tokenHash: string;
  accountId: number;
  name: string;
  /** Who holds the token (a person or an integration's contact); shown as uploader/approver. */
  email?: string;
  role: Role;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt?: string;
  revokedAt?: string;
  /** When the token stops working (UTC ISO 8601); none: it works until revoked. */
  expiresAt?: string;
  /** The token that issued it (an admin's), if one did (issue 41: a revocation with `cascade` revokes it too). */
  createdByTokenId?: number;
  /** 2: `scopes` are the scopes of every route (issue 41); absent: a token issued before, migrated at its next use. */
  scopesVersion?: number;
}
