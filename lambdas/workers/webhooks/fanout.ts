import type { DomainEvent } from '#core/domain-event';
import { fanOut } from '#services/webhooks/webhooks';
import { eventIds, sqsRecords } from '../sqs-records';

/** EventBridge -> SQS -> here: each bus event becomes one delivery per matching subscription. */
export const handler = sqsRecords('fan-out failed', async (record) => fanOut((JSON.parse(record.body) as { detail: DomainEvent }).detail), { ids: eventIds });
