import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { deliveryView, retryNow } from '#services/webhooks/webhooks';
import { WebhooksRetry } from '#catalog/webhooks';

export const handler = route(WebhooksRetry.schemas, async ({ params, principal }) => {
  const d = await retryNow(principal, params.id, params.delivery);
  return ok(deliveryView(d), { message: d.state === 'delivered' ? 'Delivered.' : 'The endpoint did not accept the delivery.' });
});
