import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { created, ok } from '../kit/reply';
import { getAccount, getTokenById, issueToken, listTokens, revokeWithCascade, viewToken } from '#services/auth/accounts';
import { NotFound, ValidationFailed } from '#core/errors';
import { AdminTokensCreate, AdminTokensList, AdminTokensRevoke } from '#catalog/admin';

/** A token's role follows its account: partners act for themselves, brokers review, the operator administers. */
const roleForKind = { partner: 'partner', broker: 'broker', operator: 'admin' } as const;

const create = route(AdminTokensCreate.schemas, async ({ body, principal }) => {
  const account = await getAccount(body.account_id);
  if (!account) throw new ValidationFailed({ account_id: ['No account has this id.'] });
  if (roleForKind[account.kind] !== body.role) {
    throw new ValidationFailed({ role: [`A ${account.kind} account's tokens have the ${roleForKind[account.kind]} role.`] });
  }
  const { token, record } = await issueToken({ accountId: account.id, name: body.name, email: body.email, role: body.role, scopes: body.scopes, expiresAt: body.expires_at, createdByTokenId: principal.tokenId || undefined });
  return created({ ...viewToken(record), token }, 'Token created. Store it now: it is not shown again.');
});

const list = route(AdminTokensList.schemas, async ({ query }) => {
  const tokens = await listTokens(query.account_id);
  return ok(tokens.map(viewToken), { extra: { count: tokens.length } });
});

const revoke = route(AdminTokensRevoke.schemas, async ({ params, query }) => {
  const token = await getTokenById(params.id);
  if (!token) throw new NotFound('Token not found.');
  const { token: revoked, cascaded } = await revokeWithCascade(token, query.cascade === 'true');
  return ok(viewToken(revoked), { message: 'Token revoked.', extra: { cascaded } });
});

export const handler = byMethod({ POST: create, GET: list, DELETE: revoke });
