import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { changeSubscription, subscriptionView } from '#services/webhooks/webhooks';
import { WebhooksUpdate } from '#catalog/webhooks';

/** PUT: changes a subscription's address, events or state. */
export const handler = route(WebhooksUpdate.schemas, async ({ params, body, principal }) => {
  const { sub, reactivated } = await changeSubscription(principal, params.id, { endpointUrl: body.endpoint_url, events: body.events, active: body.active });
  const view = subscriptionView(sub);
  return ok(
    { id: view.id, endpoint_url: view.endpoint_url, events: view.events, active: view.active, health_status: view.health_status, updated_at: view.updated_at },
    { message: reactivated ? 'Subscription reactivated.' : 'Subscription updated.' },
  );
});
