import { route } from '../kit/route';
import { created } from '../kit/reply';
import { rotateSigningSecret } from '#services/auth/accounts';
import { NotFound } from '#core/errors';
import { AdminAccountSigningSecret } from '#catalog/admin';

/** Makes or rotates a partner account's manifest signing secret; the value is shown only here. */
export const handler = route(AdminAccountSigningSecret.schemas, async ({ params }) => {
  const made = await rotateSigningSecret(params.id);
  if (!made) throw new NotFound('Account not found.');
  const { account, secret, at, rotated } = made;
  return created(
    { account_id: account.id, secret, created_at: at, rotated },
    rotated ? 'Signing secret rotated: the old one no longer verifies.' : 'Signing secret created.',
    { important: 'Store the secret now: it is shown only once. Sign each manifest body with it (X-Signature: sha256=<hex HMAC-SHA256 of the raw body>).' },
  );
});
