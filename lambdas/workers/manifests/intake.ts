import { queues } from '#catalog/queues';
import type { IntakeJob } from '#services/manifests/intake-job';
import { writeIntakeJob } from '#services/manifests/writer';
import { logger } from '#shared/logger';
import { sqsRecords } from '../sqs-records';

/**
 * Intake queue -> here: writes an accepted manifest's (or chunk's) items from its stored payload
 * and releases the batch to processing. A failed job is delivered again (the writes are
 * idempotent); on its last delivery the failure is recorded for the status routes instead.
 */
export const handler = sqsRecords(
  'manifest intake failed',
  async (record) => {
    const lastAttempt = Number(record.attributes.ApproximateReceiveCount) >= queues.manifestIntake.maxReceiveCount;
    const job = JSON.parse(record.body) as IntakeJob;
    const started = Date.now();
    await writeIntakeJob(job, { lastAttempt });
    logger.info('manifest intake written', { ms: Date.now() - started }); // the batch (and chunk) come from `ids`
  },
  { ids: (job: IntakeJob) => intakeIds(job) },
);

/** Which batch (and chunk) a job writes. */
function intakeIds(job: IntakeJob) {
  return job.kind === 'chunk' ? { batchId: job.set.batchId, chunk: job.chunk.chunk, items: job.chunk.items } : { batchId: job.record.batchId };
}
