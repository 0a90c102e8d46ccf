import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { created, ok } from '../kit/reply';
import { standardWebhooksSecret } from '#core/webhooks/delivery-rules';
import { subscribe, subscriptionsOf, subscriptionView } from '#services/webhooks/webhooks';
import { WebhooksCreate } from '#catalog/webhooks';

const list = route({}, async ({ principal }) => {
  const subs = await subscriptionsOf(principal.accountId);
  return ok(subs.map(subscriptionView), { extra: { count: subs.length } });
});

const create = route(WebhooksCreate.schemas, async ({ body, principal }) => {
  const sub = await subscribe(principal, { endpointUrl: body.endpoint_url, events: body.events, active: body.active });
  return created({ ...subscriptionView(sub), hmac_secret: sub.secret, standard_webhooks_secret: standardWebhooksSecret(sub.secret) }, 'Subscription created.', {
    important:
      'Store the secret now: it is shown only once. Verify every delivery with it: hmac_secret for X-Service-Signature, or the same secret as standard_webhooks_secret with a Standard Webhooks library (webhook-signature).',
  });
});

export const handler = byMethod({ GET: list, POST: create });
