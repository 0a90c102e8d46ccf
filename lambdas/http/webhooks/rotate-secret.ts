import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { rotateSecret } from '../../services/webhooks/webhooks';
import { WebhooksRotateSecret } from './routes';

/** A new signing secret for every delivery from now on, shown once. */
export const handler = route(WebhooksRotateSecret.schemas, async ({ params, principal }) => {
  const secret = await rotateSecret(principal, params.id);
  return ok({ id: params.id, hmac_secret: secret }, { message: 'Secret rotated.', extra: { important: 'Store the new hmac_secret now: it is shown only once.' } });
});
