import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { listDeliveries } from '../../infra/entities/webhooks';
import { findSubscription, type DeliveryJob } from '../../services/webhooks';
import { queues } from '../../infra/queues';
import { Conflict } from '../../core/errors';
import { RetryFailedBody } from './schemas';

/** Re-sends every failed delivery of the subscription (since `since`), through the delivery queue. */
export const handler = route({ params: IdParams, body: RetryFailedBody }, async ({ params, body, principal }) => {
  const sub = await findSubscription(principal, params.id);
  if (!sub.active) throw new Conflict('The subscription is disabled: reactivate it first (PUT active=true).');
  const since = body.since ? new Date(body.since).toISOString() : '';
  const failed = (await listDeliveries(sub.id)).filter((d) => d.state === 'failed' && d.createdAt >= since);
  for (const d of failed) {
    await queues().send('webhookDelivery', { subscriptionId: d.subscriptionId, eventId: d.eventId, attempt: d.attempts.length + 1, manual: true } satisfies DeliveryJob);
  }
  return ok({ queued: failed.length }, { message: `${failed.length} failed deliveries queued again.` });
});
