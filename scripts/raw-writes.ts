import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The baseline the benchmarks compare with: the same items written with plain BatchWriteItem,
 * 25 at a time, 8 calls in flight (as the service writes), unprocessed items sent again.
 * Answers the milliseconds it took.
 */
export async function rawWrite(client: DynamoDBDocumentClient, table: string, items: object[], tag: string): Promise<number> {
  const started = performance.now();
  const calls: object[][] = [];
  for (let i = 0; i < items.length; i += 25) calls.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < calls.length) {
        const k = next++;
        let pending: Record<string, unknown[]> | undefined = { [table]: calls[k].map((it, j) => ({ PutRequest: { Item: { pk: `${tag}#${k}`, sk: String(j), ...it } } })) };
        while (pending && Object.keys(pending).length) {
          pending = (await client.send(new BatchWriteCommand({ RequestItems: pending as never }))).UnprocessedItems as Record<string, unknown[]> | undefined;
        }
      }
    }),
  );
  return performance.now() - started;
}
