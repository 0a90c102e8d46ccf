import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { created, ok } from '../kit/reply';
import { subscribe, subscriptionsOf, subscriptionView } from '../../services/webhooks/webhooks';
import { WebhooksCreate } from './routes';

const list = route({}, async ({ principal }) => {
  const subs = await subscriptionsOf(principal.accountId);
  return ok(subs.map(subscriptionView), { extra: { count: subs.length } });
});

const create = route(WebhooksCreate.schemas, async ({ body, principal }) => {
  const sub = await subscribe(principal, { endpointUrl: body.endpoint_url, events: body.events, active: body.active });
  return created({ ...subscriptionView(sub), hmac_secret: sub.secret }, 'Subscription created.', {
    important: 'Store the hmac_secret now: it is shown only once. Verify every delivery with it (X-Service-Signature).',
  });
});

export const handler = byMethod({ GET: list, POST: create });
