import { isConditionalFailure } from './entity';
import { accounts } from './auth/account';
import { tokens } from './auth/token';
import { nextId } from './counters';
import { type Account, type AccountKind, type TokenRecord } from '#core/auth/accounts';
import { secretSealer, type SecretBinding } from '../sealed-secrets';
import { logger } from '#shared/logger';

export async function createAccount(input: { name: string; kind: AccountKind }, at: string): Promise<Account> {
  const id = await nextId('account');
  const res = await accounts().create({ id, name: input.name, kind: input.kind, createdAt: at, updatedAt: at }).go();
  return res.data;
}

export async function getAccount(id: number): Promise<Account | undefined> {
  const res = await accounts().get({ id }).go();
  return res.data ?? undefined;
}

/** A manifest signing secret's encryption context: a ciphertext copied to another account does not open. */
const bindingOf = (accountId: number): SecretBinding => ({ purpose: 'manifest-signing', account: accountId });

/**
 * Sets (or replaces) an account's manifest signing secret, sealed (the item holds ciphertext only;
 * a plain one written before issue 31 goes); false when the account does not exist.
 */
/** Records the account's consent to export its tariff decisions (given or withdrawn): the account as it is now, undefined when there is no such account. */
export async function setTariffConsent(id: number, shares: boolean, reference: string | undefined, at: string): Promise<Account | undefined> {
  try {
    const patch = accounts().patch({ id }).set({ sharesTariffDecisions: shares, tariffConsentAt: at, updatedAt: at, ...(reference ? { tariffConsentReference: reference } : {}) });
    const res = await (reference ? patch : patch.remove(['tariffConsentReference'])).go({ response: 'all_new' });
    return res.data;
  } catch (err) {
    if (isConditionalFailure(err)) return undefined;
    throw err;
  }
}

export async function setSigningSecret(id: number, secret: string, at: string): Promise<boolean> {
  const sealedSigningSecret = await secretSealer().seal(secret, bindingOf(id));
  try {
    await accounts().patch({ id }).set({ sealedSigningSecret, updatedAt: at }).remove(['legacySigningSecret']).go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * Seals the plain signing secret of an item written before issue 31, if the item still holds that
 * one and nothing sealed (a conditional write: a rotation or another sealing since wins). True when
 * this call sealed it.
 */
export async function sealLegacySigningSecret(account: Pick<Account, 'id' | 'legacySigningSecret'>): Promise<boolean> {
  if (account.legacySigningSecret === undefined) return false;
  const sealedSigningSecret = await secretSealer().seal(account.legacySigningSecret, bindingOf(account.id));
  try {
    await accounts()
      .patch({ id: account.id })
      .set({ sealedSigningSecret })
      .remove(['legacySigningSecret'])
      .where(({ legacySigningSecret, sealedSigningSecret: sealed }, { eq, notExists }) => `${eq(legacySigningSecret, account.legacySigningSecret!)} AND ${notExists(sealed)}`)
      .go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * The account's manifest signing secret opened, or undefined when it has none: for intake's
 * X-Signature check only. A plain secret of an item written before issue 31 is used as it is and
 * sealed on the way (read-through migration; a failure to seal is logged, the check still runs).
 */
export async function openSigningSecret(account: Account): Promise<string | undefined> {
  if (account.sealedSigningSecret !== undefined) return secretSealer().open(account.sealedSigningSecret, bindingOf(account.id));
  if (account.legacySigningSecret === undefined) return undefined;
  await sealLegacySigningSecret(account).catch((err: unknown) =>
    logger.warn('could not seal a manifest signing secret stored in clear', { accountId: account.id, error: (err as Error).message }),
  );
  return account.legacySigningSecret;
}

export async function listAccounts(): Promise<Account[]> {
  const res = await accounts().query.all({}).go({ pages: 'all' });
  return res.data;
}

export async function putToken(record: Omit<TokenRecord, 'id'> & { id?: number }): Promise<TokenRecord> {
  const id = record.id ?? (await nextId('token'));
  const res = await tokens().create({ ...record, id }).go();
  return res.data;
}

/**
 * Writes out a token's scopes as every route names them (issue 41's migration): once, on the
 * condition that it was not written before (two first uses at once write it once).
 */
export async function writeOutScopes(tokenHash: string, scopes: TokenRecord['scopes']): Promise<boolean> {
  try {
    await tokens()
      .patch({ tokenHash })
      .set({ scopes, scopesVersion: 2 })
      .where(({ scopesVersion }, { notExists }) => notExists(scopesVersion))
      .go({ response: 'none' });
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}

/** The authorizer's lookup: strongly consistent, so a revocation takes effect on the next call. */
export async function findTokenByHash(tokenHash: string): Promise<TokenRecord | undefined> {
  const res = await tokens().get({ tokenHash }).go({ consistent: true });
  return res.data ?? undefined;
}

export async function getTokenById(id: number): Promise<TokenRecord | undefined> {
  const res = await tokens().query.byId({ id }).go();
  return res.data[0];
}

/** Tokens of one account, or of every account when none is given; oldest first. */
export async function listTokens(accountId?: number): Promise<TokenRecord[]> {
  const res =
    accountId === undefined
      ? await tokens().query.all({}).go({ pages: 'all' })
      : await tokens().query.byAccount({ accountId }).go({ pages: 'all' });
  return res.data;
}

/** Marks a token revoked; revoking twice keeps the first revocation time. */
export async function revokeToken(record: TokenRecord, at: string): Promise<TokenRecord> {
  try {
    const res = await tokens()
      .patch({ tokenHash: record.tokenHash })
      .set({ revokedAt: at })
      .where(({ revokedAt }, { notExists }) => notExists(revokedAt))
      .go({ response: 'all_new' });
    return res.data;
  } catch (err) {
    if (isConditionalFailure(err)) return (await findTokenByHash(record.tokenHash)) ?? record;
    throw err;
  }
}
