import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logInvocation, logger } from '../shared/logger';

/**
 * An SQS worker's handler: `fn` runs on each record, in order unless `inParallel`; a record that
 * throws (an unparseable body too) is logged and reported in `batchItemFailures`, the others
 * succeed.
 */
export function sqsRecords(
  failure: string,
  fn: (record: SQSRecord) => Promise<unknown>,
  opts: { inParallel?: boolean } = {},
): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  const record = async (r: SQSRecord) => {
    try {
      await fn(r);
    } catch (err) {
      logger.error(failure, { messageId: r.messageId, error: err as Error });
      throw err;
    }
  };
  // A processor per invocation: its state is per instance, and the twin runs one module's
  // invocations concurrently. A batch where every record failed is answered, not thrown, so
  // the twin and the cloud lane read the same response as for a partial failure.
  return (event, context) => {
    logInvocation(context);
    return processPartialResponse(event, record, new BatchProcessor(EventType.SQS), {
      processInParallel: opts.inParallel ?? false,
      throwOnFullBatchFailure: false,
    });
  };
}
