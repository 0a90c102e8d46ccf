import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runSync, scheduledSync, type SyncMessage } from '../services/order-sync';
import { logger } from '../http/kit/logger';

/**
 * The marketplace-sync queue: `run` messages (a sync started by POST /v1/orders/sync or by the
 * schedule) and the schedule's `scheduled` tick, which starts a sync per connected account.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const message = JSON.parse(record.body) as SyncMessage | { kind: 'scheduled' };
      if (message.kind === 'scheduled') logger.info('scheduled sync', await scheduledSync());
      else await runSync(message);
    } catch (err) {
      logger.error('marketplace sync failed', { messageId: record.messageId, error: err as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
