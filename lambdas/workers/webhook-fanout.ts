import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DomainEvent } from '../infra/events';
import { fanOut } from '../services/webhooks';
import { logger } from '../http/kit/logger';

/** EventBridge -> SQS -> here: each bus event becomes one delivery per matching subscription. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const envelope = JSON.parse(record.body) as { detail: DomainEvent };
      await fanOut(envelope.detail);
    } catch (err) {
      logger.error('fan-out failed', { messageId: record.messageId, error: err as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
