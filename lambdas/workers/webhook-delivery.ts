import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliver, type DeliveryJob } from '../services/webhooks';
import { logger } from '../http/kit/logger';

/** One attempt per message; a receiver's failure is recorded and scheduled, not thrown. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        await deliver(JSON.parse(record.body) as DeliveryJob);
      } catch (err) {
        logger.error('delivery failed to run', { messageId: record.messageId, error: err as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures };
}
