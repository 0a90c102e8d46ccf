import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { created, ok } from '../kit/reply';
import { createAccount, listAccounts } from '#services/auth/accounts';
import { accountView } from '#core/auth/views';
import { AdminAccountsCreate } from '#catalog/admin';

const create = route(AdminAccountsCreate.schemas, async ({ body }) => {
  const account = await createAccount(body);
  return created(accountView(account), 'Account created.');
});

const list = route({}, async () => {
  const accounts = await listAccounts();
  return ok(accounts.map(accountView), { extra: { count: accounts.length } });
});

export const handler = byMethod({ POST: create, GET: list });
