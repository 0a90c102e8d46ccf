import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DomainEvent } from '../infra/events';
import { startRunFor } from '../services/pipeline/start';
import { logger } from '../http/kit/logger';

/** Bus -> SQS -> here: an accepted submission (or a tax-id correction) starts a pipeline run. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await startRunFor((JSON.parse(record.body) as { detail: DomainEvent }).detail);
    } catch (err) {
      logger.error('pipeline start failed', { messageId: record.messageId, error: err as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
