import { route } from '../kit/route';
import { created } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { getAccount, setSigningSecret } from '../../infra/entities/accounts';
import { newManifestSigningSecret } from '../../core/manifests/signature';
import { NotFound } from '../../core/errors';
import { nowIso } from '../../infra/clock';

/** Makes or rotates a partner account's manifest signing secret; the value is shown only here. */
export const handler = route({ params: IdParams }, async ({ params }) => {
  const account = await getAccount(params.id);
  if (!account) throw new NotFound('Account not found.');
  const rotated = account.manifestSigningSecret !== undefined;
  const secret = newManifestSigningSecret();
  const at = nowIso();
  if (!(await setSigningSecret(account.id, secret, at))) throw new NotFound('Account not found.');
  return created(
    { account_id: account.id, secret, created_at: at, rotated },
    rotated ? 'Signing secret rotated: the old one no longer verifies.' : 'Signing secret created.',
    { important: 'Store the secret now: it is shown only once. Sign each manifest body with it (X-Signature: sha256=<hex HMAC-SHA256 of the raw body>).' },
  );
});
