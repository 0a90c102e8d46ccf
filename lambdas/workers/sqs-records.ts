import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logInvocation, logger, withLogKeys, type LogKeys } from '#shared/logger';

/** The ids a worker's log lines carry for a record's body (a batch id, an event id: never personal data). */
export type RecordIds = (body: any) => LogKeys;

function idsOf(record: SQSRecord, ids: RecordIds | undefined): LogKeys {
  if (!ids) return {};
  try {
    return ids(JSON.parse(record.body));
  } catch {
    return {}; // an unparseable body fails in `fn`, and is logged by its message id
  }
}

/**
 * An SQS worker's handler: `fn` runs on each record, in order unless `inParallel`, with the
 * message id and the body's `ids` (its batch, event, subscription...) on every line logged while
 * it works on that record, the services' lines too; a record that throws (an unparseable body
 * too) is logged and reported in `batchItemFailures`, the others succeed.
 */
export function sqsRecords(
  failure: string,
  fn: (record: SQSRecord) => Promise<unknown>,
  opts: { inParallel?: boolean; ids?: RecordIds } = {},
): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  const record = (r: SQSRecord) =>
    withLogKeys({ messageId: r.messageId, ...idsOf(r, opts.ids) }, async () => {
      try {
        await fn(r);
      } catch (err) {
        logger.error(failure, { error: err as Error });
        throw err;
      }
    });
  // A processor per invocation: its state is per instance, and the twin runs one module's
  // invocations concurrently. A batch where every record failed is answered, not thrown, so
  // the twin and the cloud lane read the same response as for a partial failure.
  return (event, context) =>
    withLogKeys(logInvocation(context), () =>
      processPartialResponse(event, record, new BatchProcessor(EventType.SQS), {
        processInParallel: opts.inParallel ?? false,
        throwOnFullBatchFailure: false,
      }),
    );
}

/** The ids of a bus event delivered through SQS (`{ detail: DomainEvent }`): the event and, for a manifest's, its batch. */
export const eventIds: RecordIds = (body) => ({ eventId: body?.detail?.id, eventType: body?.detail?.type, batchId: body?.detail?.data?.batch_id });
