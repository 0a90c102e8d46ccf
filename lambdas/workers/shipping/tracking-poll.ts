import { runTrackingPoll } from '#services/shipping/tracking-poll';
import { logger } from '#shared/logger';
import { sqsRecords } from '../sqs-records';

/**
 * The tracking-poll queue: the schedule's `scheduled` tick starts at the first watched shipment;
 * a full page queues the next one (`page` with `after`), so one run stays short however many
 * shipments are moving.
 */
export const handler = sqsRecords('tracking poll failed', async (record) => {
  logger.info('tracking poll', { ...(await runTrackingPoll(JSON.parse(record.body))) });
});
