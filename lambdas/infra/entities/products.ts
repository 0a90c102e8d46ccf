/**
 * Products of an account, one per SKU (`PRODUCT#<account>#<sku>`): the integer `product_id` its
 * order lines carry and, when the merchant tracks it, the stock level, its low-stock threshold and
 * the warehouse it sits in. Shipping an order takes its quantities off the stock in the same
 * transaction as the shipment; `below` remembers that a fall under the threshold was announced,
 * so `inventory.low_stock` fires once per fall, by a conditional write.
 */
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '../../shared/config';
import { isConditionalFailure } from './entity';
import { nextIds } from './counters';
import { batchGetAll } from '../batch-get';
import type { TransactItem } from './orders';

export interface ProductRecord {
  accountId: number;
  productId: number;
  sku: string;
  name: string;
  /** Undefined while the merchant does not track this SKU's stock. */
  stock?: number;
  threshold?: number;
  warehouseId?: number;
  warehouseName?: string;
  below?: boolean;
  updatedAt?: string;
}

const table = () => config.tableName();
const productKey = (accountId: number, sku: string) => ({ pk: `PRODUCT#${accountId}#${sku}`, sk: 'PRODUCT' });

function strip(item: Record<string, unknown>): ProductRecord {
  const { pk: _p, sk: _s, gsi1pk: _g, gsi1sk: _k, ...rest } = item;
  return rest as unknown as ProductRecord;
}

export async function getProducts(accountId: number, skus: string[]): Promise<Map<string, ProductRecord>> {
  const items = await batchGetAll([...new Set(skus)].map((sku) => productKey(accountId, sku)));
  return new Map(items.map((item) => [item.sku as string, strip(item)]));
}

/** The product of each SKU, made on first sight (a conditional put: two orders never make two). */
export async function productsFor(accountId: number, lines: { sku: string; name: string }[]): Promise<Map<string, ProductRecord>> {
  const known = await getProducts(accountId, lines.map((l) => l.sku));
  const missing = [...new Map(lines.filter((l) => !known.has(l.sku)).map((l) => [l.sku, l])).values()];
  if (!missing.length) return known;
  const first = await nextIds('product', missing.length);
  await Promise.all(
    missing.map(async (line, i) => {
      const record: ProductRecord = { accountId, productId: first + i, sku: line.sku, name: line.name };
      try {
        await documentClient().send(
          new PutCommand({
            TableName: table(),
            Item: { ...productKey(accountId, line.sku), ...record, gsi1pk: `ACCOUNT#${accountId}#PRODUCTS`, gsi1sk: line.sku },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        known.set(line.sku, record);
      } catch (err) {
        if (!isConditionalFailure(err)) throw err;
      }
    }),
  );
  const raced = missing.filter((l) => !known.has(l.sku)).map((l) => l.sku);
  if (raced.length) for (const [sku, p] of await getProducts(accountId, raced)) known.set(sku, p);
  return known;
}

/** Sets a SKU's tracked stock, threshold and warehouse (making the product if new). */
export async function setStock(
  accountId: number,
  sku: string,
  s: { name?: string; stock: number; threshold: number; warehouseId: number; warehouseName: string },
  at: string,
): Promise<ProductRecord> {
  const [product] = (await productsFor(accountId, [{ sku, name: s.name ?? sku }])).values();
  const res = await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: productKey(accountId, sku),
      UpdateExpression: 'SET #stock = :stock, #threshold = :threshold, #wid = :wid, #wname = :wname, #name = :name, #at = :at',
      ExpressionAttributeNames: { '#stock': 'stock', '#threshold': 'threshold', '#wid': 'warehouseId', '#wname': 'warehouseName', '#name': 'name', '#at': 'updatedAt' },
      ExpressionAttributeValues: { ':stock': s.stock, ':threshold': s.threshold, ':wid': s.warehouseId, ':wname': s.warehouseName, ':name': s.name ?? product.name, ':at': at },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return strip(res.Attributes!);
}

/** The writes that take shipped quantities off tracked stock, for the shipment's transaction. */
export function stockDecrements(accountId: number, lines: { sku: string; quantity: number }[], tracked: Map<string, ProductRecord>): TransactItem[] {
  const bySku = new Map<string, number>();
  for (const l of lines) if (tracked.get(l.sku)?.stock !== undefined) bySku.set(l.sku, (bySku.get(l.sku) ?? 0) + l.quantity);
  return [...bySku].map(([sku, quantity]) => ({
    Update: {
      TableName: table(),
      Key: productKey(accountId, sku),
      UpdateExpression: 'ADD #stock :minus',
      ConditionExpression: 'attribute_exists(#stock)',
      ExpressionAttributeNames: { '#stock': 'stock' },
      ExpressionAttributeValues: { ':minus': -quantity },
    },
  }));
}

/**
 * After stock changed: each SKU now under its threshold that was not yet announced is marked
 * (conditionally, so once per fall) and returned; each SKU back at or over it is unmarked.
 */
export async function markLowStock(accountId: number, skus: string[]): Promise<ProductRecord[]> {
  const fallen: ProductRecord[] = [];
  for (const sku of new Set(skus)) {
    try {
      const res = await documentClient().send(
        new UpdateCommand({
          TableName: table(),
          Key: productKey(accountId, sku),
          UpdateExpression: 'SET #below = :true',
          ConditionExpression: '#stock < #threshold AND (attribute_not_exists(#below) OR #below = :false)',
          ExpressionAttributeNames: { '#below': 'below', '#stock': 'stock', '#threshold': 'threshold' },
          ExpressionAttributeValues: { ':true': true, ':false': false },
          ReturnValues: 'ALL_NEW',
        }),
      );
      fallen.push(strip(res.Attributes!));
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
      await documentClient()
        .send(
          new UpdateCommand({
            TableName: table(),
            Key: productKey(accountId, sku),
            UpdateExpression: 'SET #below = :false',
            ConditionExpression: '#stock >= #threshold AND #below = :true',
            ExpressionAttributeNames: { '#below': 'below', '#stock': 'stock', '#threshold': 'threshold' },
            ExpressionAttributeValues: { ':true': true, ':false': false },
          }),
        )
        .catch((e) => {
          if (!isConditionalFailure(e)) throw e;
        });
    }
  }
  return fallen;
}

export async function listProducts(accountId: number): Promise<ProductRecord[]> {
  const out: ProductRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}#PRODUCTS` },
        ExclusiveStartKey: start,
      }),
    );
    out.push(...(res.Items ?? []).map(strip));
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}
