import { runSync, scheduledSync, type SyncMessage } from '#services/orders/sync';
import { logger } from '#shared/logger';
import { sqsRecords } from '../sqs-records';

/**
 * The marketplace-sync queue: `run` messages (a sync started by POST /v1/orders/sync or by the
 * schedule) and the schedule's `scheduled` tick, which starts a sync per connected account.
 */
export const handler = sqsRecords('marketplace sync failed', async (record) => {
  const message = JSON.parse(record.body) as SyncMessage | { kind: 'scheduled' };
  if (message.kind === 'scheduled') logger.info('scheduled sync', await scheduledSync());
  else await runSync(message);
});
