import { deliver, type DeliveryJob } from '#services/webhooks/webhooks';
import { sqsRecords } from '../sqs-records';

/** One attempt per message; a receiver's failure is recorded and scheduled, not thrown. */
export const handler = sqsRecords('delivery failed to run', async (record) => deliver(JSON.parse(record.body) as DeliveryJob), {
  inParallel: true,
  ids: (job: DeliveryJob) => ({ subscriptionId: job?.subscriptionId, eventId: job?.eventId, attempt: job?.attempt }),
});
