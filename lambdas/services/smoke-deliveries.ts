/**
 * What the smoke test's receiver keeps (lambdas/http/smoke/receiver.ts): a delivery's headers and
 * body under a run's path, as `smoke#<path>` items of the stage's table, each for an hour (the
 * table's TTL; a read skips an item past it before DynamoDB removes it).
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#infra/dynamo';
import { tableSchema } from '#infra/table-schema';

/** How long a delivery is kept, how much of one, and how many a read answers. */
export const smokeReceiverLimits = { keepSeconds: 3600, maxBodyBytes: 64 * 1024, maxDeliveries: 25 } as const;

export interface SmokeDelivery {
  headers: Record<string, string>;
  body: string;
}

export interface SmokeDeliveryStore {
  keep(path: string, delivery: SmokeDelivery, at: Date): Promise<void>;
  /** The path's deliveries kept and not past their hour at `now`, oldest first. */
  list(path: string, now: Date): Promise<SmokeDelivery[]>;
}

export function smokeDeliveryStore(client: DynamoDBDocumentClient = documentClient(), tableName: string = process.env.TABLE_NAME!): SmokeDeliveryStore {
  const pk = (path: string) => `smoke#${path}`;
  return {
    async keep(path, delivery, at) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            [tableSchema.partitionKey]: pk(path),
            [tableSchema.sortKey]: `${at.toISOString()}#${randomUUID()}`,
            headers: delivery.headers,
            body: delivery.body,
            [tableSchema.ttlAttribute]: Math.floor(at.getTime() / 1000) + smokeReceiverLimits.keepSeconds,
          },
          // A new item each time (the sort key is unique): the condition keeps a put from ever replacing one.
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': tableSchema.partitionKey },
        }),
      );
    },
    async list(path, now) {
      const res = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': tableSchema.partitionKey },
          ExpressionAttributeValues: { ':pk': pk(path) },
          Limit: smokeReceiverLimits.maxDeliveries,
        }),
      );
      return (res.Items ?? [])
        .filter((i) => Number(i[tableSchema.ttlAttribute]) * 1000 > now.getTime())
        .map((i) => ({ headers: (i.headers ?? {}) as Record<string, string>, body: String(i.body ?? '') }));
    },
  };
}
