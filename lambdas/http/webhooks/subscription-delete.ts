import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { unsubscribe } from '#services/webhooks/webhooks';
import { WebhooksDelete } from '#catalog/webhooks';

/** DELETE: removes a subscription. */
export const handler = route(WebhooksDelete.schemas, async ({ params, principal }) => {
  await unsubscribe(principal, params.id);
  return ok(undefined, { message: 'Subscription deleted.' });
});
