import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { ok } from '../kit/reply';
import { getTokenById, listTokens, revokeWithCascade, viewToken } from '#services/auth/accounts';
import { NotFound } from '#core/errors';
import { MyTokensRevoke } from '#catalog/auth';

const list = route({}, async ({ principal }) => {
  const tokens = await listTokens(principal.accountId);
  return ok(tokens.map(viewToken), { extra: { count: tokens.length } });
});

/** Another account's token answers exactly like a token that does not exist. */
const revoke = route(MyTokensRevoke.schemas, async ({ params, query, principal }) => {
  const token = await getTokenById(params.id);
  if (!token || token.accountId !== principal.accountId) throw new NotFound('Token not found.');
  const { token: revoked, cascaded } = await revokeWithCascade(token, query.cascade === 'true');
  return ok(viewToken(revoked), { message: 'Token revoked.', extra: { cascaded } });
});

export const handler = byMethod({ GET: list, DELETE: revoke });
