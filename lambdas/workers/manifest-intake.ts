import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { queues } from '../catalog-queues';
import type { IntakeJob } from '../services/manifest-intake';
import { writeIntakeJob } from '../services/manifest-writer';
import { logger } from '../http/kit/logger';

/**
 * Intake queue -> here: writes an accepted manifest's (or chunk's) items from its stored payload
 * and releases the batch to processing. A failed job is delivered again (the writes are
 * idempotent); on its last delivery the failure is recorded for the status routes instead.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const lastAttempt = Number(record.attributes.ApproximateReceiveCount) >= queues.manifestIntake.maxReceiveCount;
    try {
      await writeIntakeJob(JSON.parse(record.body) as IntakeJob, { lastAttempt });
    } catch (err) {
      logger.error('manifest intake failed', { messageId: record.messageId, error: err as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
