import { route } from '../kit/route';
import { created } from '../kit/reply';
import { standardWebhooksSecret } from '#core/webhooks/delivery-rules';
import { secretNotice } from './secret-notice';
import { subscribe, subscriptionView } from '#services/webhooks/webhooks';
import { WebhooksCreate } from '#catalog/webhooks';

/** POST /v1/webhooks: a new subscription, its secret sealed (the list is subscriptions-list.ts). */
export const handler = route(WebhooksCreate.schemas, async ({ body, principal }) => {
  const sub = await subscribe(principal, { endpointUrl: body.endpoint_url, events: body.events, active: body.active });
  // standard_webhooks_secret: a deprecated alias, equal to hmac_secret, kept for one release.
  return created({ ...subscriptionView(sub), hmac_secret: sub.secret, standard_webhooks_secret: standardWebhooksSecret(sub.secret) }, 'Subscription created.', {
    important: secretNotice,
  });
});
