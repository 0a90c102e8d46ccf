import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { ok } from '../kit/reply';
import { changeSubscription, findSubscription, subscriptionView, unsubscribe } from '#services/webhooks/webhooks';
import { WebhooksDelete, WebhooksShow, WebhooksUpdate } from '#catalog/webhooks';

const show = route(WebhooksShow.schemas, async ({ params, principal }) => ok(subscriptionView(await findSubscription(principal, params.id))));

const update = route(WebhooksUpdate.schemas, async ({ params, body, principal }) => {
  const { sub, reactivated } = await changeSubscription(principal, params.id, { endpointUrl: body.endpoint_url, events: body.events, active: body.active });
  const view = subscriptionView(sub);
  return ok(
    { id: view.id, endpoint_url: view.endpoint_url, events: view.events, active: view.active, health_status: view.health_status, updated_at: view.updated_at },
    { message: reactivated ? 'Subscription reactivated.' : 'Subscription updated.' },
  );
});

const remove = route(WebhooksDelete.schemas, async ({ params, principal }) => {
  await unsubscribe(principal, params.id);
  return ok(undefined, { message: 'Subscription deleted.' });
});

export const handler = byMethod({ GET: show, PUT: update, DELETE: remove });
