import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './dynamo';
import { cancellationCodes } from './entities/entity';
import { mapConcurrent } from '#shared/concurrency';

type Update = NonNullable<NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number]['Update']>;

/** Actions per TransactWriteItems (DynamoDB's limit is 100). */
const perTransaction = 100;

/**
 * Updates many items, 100 to a TransactWriteItems (one request where an UpdateItem each was a
 * hundred), `atOnce` transactions in flight. Give the updates in a stable order, so a retry makes
 * the same chunks. A chunk is all or nothing: one refused by a condition (ConditionalCheckFailed:
 * the caller's mark that it was written before) is skipped when `skipConditionFailed`; one in
 * conflict with a concurrent writer's is tried again, up to 5 times with back-off.
 */
export async function transactUpdates(updates: readonly Update[], options: { atOnce?: number; skipConditionFailed?: boolean } = {}): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(updates.length / perTransaction) }, (_, k) => updates.slice(k * perTransaction, (k + 1) * perTransaction));
  await mapConcurrent(chunks, options.atOnce ?? 2, async (chunk) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await documentClient().send(new TransactWriteCommand({ TransactItems: chunk.map((Update) => ({ Update })) }));
        return;
      } catch (err) {
        const codes = cancellationCodes(err);
        if (options.skipConditionFailed && codes?.includes('ConditionalCheckFailed')) return;
        if (!codes?.includes('TransactionConflict') || attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
  });
}
