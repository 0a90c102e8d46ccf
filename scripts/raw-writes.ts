import { BatchWriteCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapConcurrent } from '#shared/concurrency';

/**
 * The baseline the benchmarks compare with: the same items written with plain BatchWriteItem,
 * 25 at a time, 8 calls in flight (as the service writes), unprocessed items sent again.
 * Answers the milliseconds it took.
 */
export async function rawWrite(client: DynamoDBDocumentClient, table: string, items: object[], tag: string): Promise<number> {
  const started = performance.now();
  const calls: object[][] = [];
  for (let i = 0; i < items.length; i += 25) calls.push(items.slice(i, i + 25));
  await mapConcurrent(calls.map((call, k) => ({ call, k })), 8, async ({ call, k }) => {
    let pending: Record<string, unknown[]> | undefined = { [table]: call.map((it, j) => ({ PutRequest: { Item: { pk: `${tag}#${k}`, sk: String(j), ...it } } })) };
    while (pending && Object.keys(pending).length) {
      pending = (await client.send(new BatchWriteCommand({ RequestItems: pending as never }))).UnprocessedItems as Record<string, unknown[]> | undefined;
    }
  });
  return performance.now() - started;
}

/**
 * The other baseline, for runs whose work is mostly quota reservations: `count` conditional puts
 * of new counter-shaped items (`attribute_not_exists`, as a person's first reservation of the
 * year is written), 100 to a TransactWriteItems, 4 transactions in flight (as the service sends
 * them). Nothing else: no reads, no service. Answers the milliseconds it took.
 */
export async function rawConditionalPuts(client: DynamoDBDocumentClient, table: string, count: number, tag: string): Promise<number> {
  const started = performance.now();
  const groups = Array.from({ length: Math.ceil(count / 100) }, (_, g) => g);
  await mapConcurrent(groups, 4, async (g) => {
    const TransactItems = Array.from({ length: Math.min(100, count - g * 100) }, (_, k) => ({
      Put: {
        TableName: table,
        Item: { pk: `${tag}#${g * 100 + k}`, sk: 'COUNTER', used: 1, awbs: new Set([`1:${tag}-${g * 100 + k}`]), updatedAt: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': 'pk' },
      },
    }));
    await client.send(new TransactWriteCommand({ TransactItems }));
  });
  return performance.now() - started;
}
