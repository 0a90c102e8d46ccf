import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { deleteSubscription, updateSubscription } from '../../infra/entities/webhooks';
import { findSubscription, subscriptionView, validateEndpoint } from '../../services/webhooks';
import { nowIso } from '../../infra/clock';
import { UpdateSubscriptionBody } from './schemas';

const show = route({ params: IdParams }, async ({ params, principal }) => ok(subscriptionView(await findSubscription(principal, params.id))));

/** Reactivating (active=true) starts the health over: the owner says the endpoint is fixed. */
const update = route({ params: IdParams, body: UpdateSubscriptionBody }, async ({ params, body, principal }) => {
  const sub = await findSubscription(principal, params.id);
  if (body.endpoint_url !== undefined) validateEndpoint(body.endpoint_url);
  const at = nowIso();
  const reactivated = body.active === true && !sub.active;
  const updated = (await updateSubscription(sub.id, {
    ...(body.endpoint_url !== undefined ? { endpointUrl: body.endpoint_url } : {}),
    ...(body.events !== undefined ? { events: [...new Set(body.events)] } : {}),
    ...(body.active !== undefined ? { active: body.active } : {}),
    ...(reactivated || body.active === true ? { consecutiveFailures: 0 } : {}),
    updatedAt: at,
  }))!;
  const view = subscriptionView(updated);
  return ok(
    { id: view.id, endpoint_url: view.endpoint_url, events: view.events, active: view.active, health_status: view.health_status, updated_at: view.updated_at },
    { message: reactivated ? 'Subscription reactivated.' : 'Subscription updated.' },
  );
});

const remove = route({ params: IdParams }, async ({ params, principal }) => {
  const sub = await findSubscription(principal, params.id);
  await deleteSubscription(sub.id);
  return ok(undefined, { message: 'Subscription deleted.' });
});

export const handler = byMethod({ GET: show, PUT: update, DELETE: remove });
