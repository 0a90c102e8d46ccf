import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { retryFailed } from '#services/webhooks/webhooks';
import { WebhooksRetryFailed } from '#catalog/webhooks';

/** Re-sends every failed delivery of the subscription (since `since`), through the delivery queue. */
export const handler = route(WebhooksRetryFailed.schemas, async ({ params, body, principal }) => {
  const queued = await retryFailed(principal, params.id, body.since);
  return ok({ queued }, { message: `${queued} failed deliveries queued again.` });
});
