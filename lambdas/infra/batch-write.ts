import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './dynamo';
import { Unavailable } from '#core/errors';

type WriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>;

export interface BatchWriteOptions {
  /** BatchWriteItem calls in flight at once. */
  concurrency?: number;
  /** Attempts per call before giving up on items DynamoDB keeps handing back. */
  maxAttempts?: number;
  /** First back-off in ms; doubles per attempt, with full jitter. */
  baseDelayMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends BatchWriteItem requests (as ElectroDB's batch `params()` builds them, 25 writes each)
 * with bounded concurrency, and sends again whatever DynamoDB returns as UnprocessedItems, with
 * exponential back-off, until every write landed. Puts and deletes by key are idempotent, so a
 * retry never duplicates a record. Gives up with 503 (nothing is acknowledged to the client).
 */
export async function batchWriteAll(batches: Iterable<{ RequestItems?: WriteRequests }>, opts: BatchWriteOptions = {}): Promise<void> {
  const { concurrency = 8, maxAttempts = 10, baseDelayMs = 25 } = opts;
  // Workers pull from one iterator, so a generator can build each call's request just in time.
  const source = batches[Symbol.iterator]();
  const worker = async () => {
    for (let step = source.next(); !step.done; step = source.next()) {
      let pending: WriteRequests | undefined = step.value.RequestItems;
      for (let attempt = 1; pending && Object.keys(pending).length > 0; attempt++) {
        if (attempt > maxAttempts) throw new Unavailable('The table is busy; nothing was acknowledged. Retry the request.');
        if (attempt > 1) await sleep(Math.random() * baseDelayMs * 2 ** (attempt - 2));
        const res = await documentClient().send(new BatchWriteCommand({ RequestItems: pending }));
        pending = res.UnprocessedItems;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
