import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './dynamo';
import { config } from '#shared/config';

/**
 * Reads items by key, 100 per BatchGetItem, strongly consistent, asking again (with back-off)
 * for whatever DynamoDB hands back unprocessed. Answers the items found, in no set order.
 */
export async function batchGetAll(keys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const table = config.tableName();
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let pending = keys.slice(i, i + 100);
    for (let attempt = 0; pending.length; attempt++) {
      const res = await documentClient().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }));
      found.push(...(res.Responses?.[table] ?? []));
      pending = res.UnprocessedKeys?.[table]?.Keys ?? [];
      if (pending.length) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
    }
  }
  return found;
}
