import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { getAccount } from '#services/auth/accounts';
import { accountView } from '#core/auth/views';
import { NotFound } from '#core/errors';

export const handler = route({}, async ({ principal }) => {
  const account = await getAccount(principal.accountId);
  if (!account) throw new NotFound('Account not found.');
  return ok({
    account: accountView(account),
    token: { id: principal.tokenId, role: principal.role, scopes: principal.scopes },
  });
});
