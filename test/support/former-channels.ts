/**
 * Data as the service stored it before Mercado Libre's code became `meli` (issue 17, item 2): the
 * former code `mercadolibre` in the order, its index row and its channel key, the connection row,
 * the credentials and the sync records. Written with the service's own writers (given the former
 * code) or, where they cannot, item by item as they were.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { MarketplaceOrder } from '#core/orders/marketplace';
import type { OrderChannel, OrderRecord } from '#core/orders/model';
import { config } from '#shared/config';
import { documentClient } from '#infra/dynamo';
import { nextId, nextIds } from '#infra/entities/counters';
import { insertOrder } from '#infra/entities/orders';
import { productsFor } from '#infra/entities/products';
import { marketplaceCredentials } from '#infra/marketplace-credentials';
import { importedOrder } from '#services/orders/orders';

export const former = 'mercadolibre' as unknown as OrderChannel & 'meli';

/** A marketplace order imported before the rename: channel, index row and channel key say mercadolibre. */
export async function importBeforeRename(accountId: number, m: MarketplaceOrder): Promise<OrderRecord> {
  const id = await nextId('order');
  const products = await productsFor(accountId, m.items);
  const firstItemId = await nextIds('orderItem', m.items.length);
  const order = importedOrder(accountId, former, m, { id, firstItemId, productIds: new Map([...products].map(([sku, p]) => [sku, p.productId])), at: new Date().toISOString() });
  const outcome = await insertOrder(order, { channel: true });
  if (outcome !== 'created') throw new Error(`import before the rename: ${outcome}`);
  return order;
}

const connectionKey = (accountId: number, channel: string) => ({ pk: 'MARKETPLACE_CONNECTIONS', sk: `${String(accountId).padStart(12, '0')}#${channel}` });

/** A Mercado Libre connection made before the rename: the row and the credentials under mercadolibre. */
export async function connectBeforeRename(accountId: number, connection: { baseUrl: string; credentials: Record<string, string> }, updatedAt = '2025-01-01T00:00:00.000Z') {
  await marketplaceCredentials().put(accountId, { channel: former, ...connection });
  await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { ...connectionKey(accountId, 'mercadolibre'), accountId, channel: 'mercadolibre', baseUrl: connection.baseUrl, updatedAt } }));
}

/** A finished sync of Mercado Libre recorded before the rename. */
export async function syncBeforeRename(accountId: number, startedAt = '2025-01-01T00:00:00.000Z') {
  const syncId = `sync_before_${accountId}`;
  const result = { status: 'completed', orders_synced: 3, orders_new: 3, orders_updated: 0, orders_rejected: 0, rejected: [], error: null };
  const record = { syncId, accountId, trigger: 'manual', status: 'completed', channels: ['mercadolibre'], since: null, startedAt, completedAt: startedAt, results: { mercadolibre: result } };
  await documentClient().send(new PutCommand({ TableName: config.tableName(), Item: { pk: `SYNC#${accountId}`, sk: `RUN#${startedAt}#${syncId}`, ...record } }));
  return { syncId, key: { pk: `SYNC#${accountId}`, sk: `RUN#${startedAt}#${syncId}` } };
}

/** An item exactly as stored. */
export async function rawItem(key: { pk: string; sk: string }): Promise<Record<string, any> | undefined> {
  return (await documentClient().send(new GetCommand({ TableName: config.tableName(), Key: key, ConsistentRead: true }))).Item;
}

export const keys = {
  order: (id: number) => ({ pk: `ORDER#${id}`, sk: 'ORDER' }),
  indexRow: (o: OrderRecord) => ({ pk: `ORDERIDX#${o.accountId}`, sk: `${o.createdAt}#${String(o.id).padStart(12, '0')}` }),
  channelKey: (accountId: number, channel: string, channelOrderId: string) => ({ pk: `CHORDER#${accountId}#${channel}#${channelOrderId}`, sk: 'CHORDER' }),
  connection: connectionKey,
};
