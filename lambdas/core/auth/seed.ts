import { createAccount, findTokenByHash, type TokenRecord } from '../../infra/entities/accounts';
import { getSetting, setSettingOnce } from '../../infra/entities/settings';
import { hashToken } from './tokens';
import { issueToken } from './issue-token';

/** The operator's own account, created on first use; admin tokens belong to it. */
export async function operatorAccountId(at: string): Promise<number> {
  const existing = await getSetting('operatorAccountId');
  if (existing) return Number(existing);
  const account = await createAccount({ name: 'Operator', kind: 'operator' }, at);
  return Number(await setSettingOnce('operatorAccountId', String(account.id)));
}

/**
 * Makes `value` a working admin token (ADMIN_TOKEN on the twin, `tokens bootstrap` for a stage).
 * Seeding the same value again changes nothing; a value revoked earlier stays revoked.
 */
export async function seedAdminToken(value: string, at: string): Promise<{ record: TokenRecord; created: boolean }> {
  const existing = await findTokenByHash(hashToken(value));
  if (existing) return { record: existing, created: false };
  const accountId = await operatorAccountId(at);
  const { record } = await issueToken({ accountId, name: 'seeded admin token', role: 'admin', scopes: ['orders:read', 'orders:write', 'customs:read', 'customs:write'], value }, at);
  return { record, created: true };
}
