/**
 * An account's warehouses (`WAREHOUSE#<account>`, one row each): the ship-from address printed on
 * labels and the place tracked stock sits. The merchant numbers them (`PUT /v1/warehouses/{id}`).
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '../../shared/config';
import { pad } from './entity';
import type { LabelAddress } from '../label-pdf';

/** A warehouse: its address is a label's sender block as it stands. */
export interface WarehouseRecord extends LabelAddress {
  accountId: number;
  id: number;
  updatedAt: string;
}

const key = (accountId: number, id: number) => ({ pk: `WAREHOUSE#${accountId}`, sk: `W#${pad(id)}` });
const strip = ({ pk: _p, sk: _s, ...rest }: Record<string, unknown>) => rest as unknown as WarehouseRecord;

export async function putWarehouse(w: WarehouseRecord): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...key(w.accountId, w.id), ...w } }));
}

export async function getWarehouse(accountId: number, id: number): Promise<WarehouseRecord | undefined> {
  const res = await documentClient().send(new GetCommand({ TableName: config.tableName(), Key: key(accountId, id), ConsistentRead: true }));
  return res.Item ? strip(res.Item) : undefined;
}

/** The account's warehouses by id; the first is the default ship-from address. */
export async function listWarehouses(accountId: number): Promise<WarehouseRecord[]> {
  const res = await documentClient().send(
    new QueryCommand({
      TableName: config.tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `WAREHOUSE#${accountId}` },
      ConsistentRead: true,
    }),
  );
  return (res.Items ?? []).map(strip);
}
