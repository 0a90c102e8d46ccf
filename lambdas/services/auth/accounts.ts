/** Accounts and their API tokens: what the account and admin routes, the twin and `tokens bootstrap` do with them. */
import { now, nowIso } from '#infra/clock';
import * as store from '#infra/entities/auth';
import { getSetting, setSettingOnce } from '#infra/entities/settings';
import { closeTokenWindows } from './rate-window';
import { disableMadeBy } from '../webhooks/webhooks';
import { logger } from '#shared/logger';
import { hasSigningSecret, type Account, type AccountKind, type TokenRecord } from '#core/auth/accounts';
import { checkExpiry, generateToken, hashToken } from '#core/auth/tokens';
import { tokenView } from '#core/auth/views';
import { ValidationFailed } from '#core/errors';
import { newManifestSigningSecret } from '#core/manifests/signature';
import type { Role, Scope } from '#catalog/types';
import { roleScopes } from '#catalog/access';

export const getAccount = store.getAccount;
export const listAccounts = store.listAccounts;
export const getTokenById = store.getTokenById;
export const listTokens = store.listTokens;

export function createAccount(input: { name: string; kind: AccountKind }): Promise<Account> {
  return store.createAccount(input, nowIso());
}

/**
 * Revokes a token, and closes its rate windows before answering: from then on every request of
 * it is refused, even one the authorizer's cached answer lets through (services/auth/rate-window.ts).
 * A repeated revocation closes them again (harmless) and keeps the first revocation time.
 */
export async function revokeToken(record: TokenRecord): Promise<TokenRecord> {
  const at = now();
  const revoked = await store.revokeToken(record, at.toISOString());
  await closeTokenWindows(record.id, at);
  return revoked;
}

/**
 * A revocation with `cascade` (issue 41): the token, then the live tokens it issued (one level:
 * what an admin token handed out) and the webhook subscriptions of its account it made, disabled
 * with the reason. Answers the token and the ids of what went with it.
 */
export async function revokeWithCascade(record: TokenRecord, cascade: boolean): Promise<{ token: TokenRecord; cascaded: { tokens: number[]; subscriptions: number[] } }> {
  const token = await revokeToken(record);
  if (!cascade) return { token, cascaded: { tokens: [], subscriptions: [] } };
  const issued = (await store.listTokens()).filter((t) => t.createdByTokenId === record.id && !t.revokedAt);
  for (const t of issued) await revokeToken(t);
  const subscriptions = await disableMadeBy(record.accountId, record.id);
  logger.info('token revoked with what it made', { tokenId: record.id, tokens: issued.map((t) => t.id), subscriptions });
  return { token, cascaded: { tokens: issued.map((t) => t.id), subscriptions } };
}

/** A token as the lists show it now (`active`: neither revoked nor expired). */
export function viewToken(record: TokenRecord) {
  return tokenView(record, now());
}

/**
 * Issues a token: the plain value is returned once and only its SHA-256 hash is stored.
 * `value` lets the operator seed a token they chose (ADMIN_TOKEN on the twin).
 */
export async function issueToken(
  input: { accountId: number; name: string; email?: string; role: Role; scopes?: Scope[]; value?: string; id?: number; expiresAt?: string; createdByTokenId?: number },
  at: string = nowIso(),
): Promise<{ token: string; record: TokenRecord }> {
  // An expiry is ISO 8601, in the future and at most two years ahead (core/auth/tokens.ts), else 422 on expires_at.
  let expiresAt: string | undefined;
  if (input.expiresAt !== undefined) {
    const checked = checkExpiry(input.expiresAt, new Date(at));
    if ('problem' in checked) throw new ValidationFailed({ expires_at: [checked.problem] });
    expiresAt = checked.expiresAt;
  }
  // Without scopes, what the role may use; with them, exactly those, each one a route of the role names.
  const allowed = roleScopes(input.role);
  const scopes = input.scopes === undefined ? allowed : [...new Set(input.scopes)];
  const foreign = scopes.filter((s) => !allowed.includes(s));
  if (foreign.length) throw new ValidationFailed({ scopes: [`No route a ${input.role} token may call needs ${foreign.join(', ')}; a ${input.role} token may hold ${allowed.join(', ')}.`] });
  const token = input.value ?? generateToken();
  const record = await store.putToken({
    id: input.id,
    tokenHash: hashToken(token),
    accountId: input.accountId,
    name: input.name,
    email: input.email,
    role: input.role,
    scopes,
    scopesVersion: 2,
    createdAt: at,
    ...(expiresAt ? { expiresAt } : {}),
    ...(input.createdByTokenId ? { createdByTokenId: input.createdByTokenId } : {}),
  });
  return { token, record };
}

/** Makes or rotates an account's manifest signing secret; undefined when there is no such account. */
export async function rotateSigningSecret(accountId: number): Promise<{ account: Account; secret: string; at: string; rotated: boolean } | undefined> {
  const account = await store.getAccount(accountId);
  if (!account) return undefined;
  const rotated = hasSigningSecret(account);
  const secret = newManifestSigningSecret();
  const at = nowIso();
  if (!(await store.setSigningSecret(account.id, secret, at))) return undefined;
  return { account, secret, at, rotated };
}

/** Records an account's consent to export the broker's tariff decisions on its products; undefined when there is no such account. */
export async function setTariffConsent(accountId: number, shares: boolean, reference?: string): Promise<Account | undefined> {
  return store.setTariffConsent(accountId, shares, reference, nowIso());
}

/** The operator's own account, created on first use; admin tokens belong to it. */
async function operatorAccountId(at: string): Promise<number> {
  const existing = await getSetting('operatorAccountId');
  if (existing) return Number(existing);
  const account = await store.createAccount({ name: 'Operator', kind: 'operator' }, at);
  return Number(await setSettingOnce('operatorAccountId', String(account.id)));
}

/**
 * Makes `value` a working admin token (ADMIN_TOKEN on the twin, `tokens bootstrap` for a stage).
 * Seeding the same value again changes nothing; a value revoked earlier stays revoked.
 */
export async function seedAdminToken(value: string, at: string): Promise<{ record: TokenRecord; created: boolean }> {
  if (value.length < 16 || /\s/.test(value)) throw new Error('ADMIN_TOKEN must be at least 16 characters without spaces.');
  const existing = await store.findTokenByHash(hashToken(value));
  if (existing) return { record: existing, created: false };
  const accountId = await operatorAccountId(at);
  const { record } = await issueToken({ accountId, name: 'seeded admin token', role: 'admin', value }, at);
  return { record, created: true };
}
