import type { DomainEvent } from '#core/domain-event';
import { startRunFor } from '#services/pipeline/start';
import { eventIds, sqsRecords } from '../sqs-records';

/** Bus -> SQS -> here: an accepted submission (or a tax-id correction) starts a pipeline run. */
export const handler = sqsRecords('pipeline start failed', async (record) => startRunFor((JSON.parse(record.body) as { detail: DomainEvent }).detail), { ids: eventIds });
