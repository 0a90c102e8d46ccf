import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { updateSubscription } from '../../infra/entities/webhooks';
import { findSubscription } from '../../services/webhooks';
import { newSigningSecret } from '../../core/webhooks/delivery-rules';
import { nowIso } from '../../infra/clock';

/** A new signing secret for every delivery from now on, shown once. */
export const handler = route({ params: IdParams }, async ({ params, principal }) => {
  const sub = await findSubscription(principal, params.id);
  const secret = newSigningSecret();
  await updateSubscription(sub.id, { secret, updatedAt: nowIso() });
  return ok({ id: sub.id, hmac_secret: secret }, { message: 'Secret rotated.', extra: { important: 'Store the new hmac_secret now: it is shown only once.' } });
});
