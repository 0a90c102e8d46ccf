import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { created, ok } from '../kit/reply';
import { standardWebhooksSecret } from '#core/webhooks/delivery-rules';
import { secretNotice } from './responses';
import { subscribe, subscriptionsOf, subscriptionView } from '#services/webhooks/webhooks';
import { WebhooksCreate } from '#catalog/webhooks';

const list = route({}, async ({ principal }) => {
  const subs = await subscriptionsOf(principal.accountId);
  return ok(subs.map(subscriptionView), { extra: { count: subs.length } });
});

const create = route(WebhooksCreate.schemas, async ({ body, principal }) => {
  const sub = await subscribe(principal, { endpointUrl: body.endpoint_url, events: body.events, active: body.active });
  // standard_webhooks_secret: a deprecated alias, equal to hmac_secret, kept for one release.
  return created({ ...subscriptionView(sub), hmac_secret: sub.secret, standard_webhooks_secret: standardWebhooksSecret(sub.secret) }, 'Subscription created.', {
    important: secretNotice,
  });
});

export const handler = byMethod({ GET: list, POST: create });
