import { hasSigningSecret, type Account, type TokenRecord } from './accounts';
import { tokenRefusal } from './tokens';

/** Public shapes (snake_case, as the rest of the interface); a token's value or hash never appears. */
export function accountView(a: Account) {
  return {
    id: a.id,
    name: a.name,
    kind: a.kind,
    has_signing_secret: hasSigningSecret(a),
    shares_tariff_decisions: a.sharesTariffDecisions ?? false,
    tariff_consent_at: a.tariffConsentAt ?? null,
    tariff_consent_reference: a.tariffConsentReference ?? null,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

/** A token as listed; `active` at `at`: neither revoked nor expired. */
export function tokenView(t: TokenRecord, at: Date) {
  return {
    id: t.id,
    account_id: t.accountId,
    name: t.name,
    email: t.email ?? null,
    role: t.role,
    scopes: t.scopes ?? [],
    created_at: t.createdAt,
    last_used_at: t.lastUsedAt ?? null,
    revoked_at: t.revokedAt ?? null,
    expires_at: t.expiresAt ?? null,
    active: !tokenRefusal(t, at),
    created_by_token_id: t.createdByTokenId ?? null,
  };
}
