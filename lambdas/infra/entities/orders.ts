/**
 * Orders in the single table. One item per order (`ORDER#<id>`, read by id with strong
 * consistency) holds the whole record, shipments included; beside it:
 *
 * - an index row per order in the account's partition (`ORDERIDX#<account>`, sorted by creation):
 *   the few fields the list filters on, so a list reads small rows, consistently;
 * - the account's order meta (`ORDERMETA#<account>`): `version`, bumped after every change an
 *   index row shows, so a cached index knows when it is stale;
 * - uniqueness keys: `CHORDER#<account>#<channel>#<channel order id>` (a re-sync never
 *   duplicates) and `ORDERNO#<account>#<number>` (web order numbers);
 * - pointers from a shipment id and from a tracking number to their order.
 *
 * Every change of an order is one transaction conditional on the version it read.
 *
 * Former channel codes (`mercadolibre`, now `meli`): items written before the rename may still
 * hold one (the order's `channel`, the index row's `c`, the channel key's pk) until the
 * `migrate channel-codes` command rewrites them. Reads answer the current code (the stored one is
 * kept in `storedChannel`, and writes store it again, so an order, its row and its key move
 * together, only by the migration, which finds them by the row); the channel key is looked up
 * under the current code, then the former ones, and a new order's key is written only if no former
 * key holds that channel order id, so an order imported before the rename is never imported twice.
 * `migrateFormerChannel` rewrites one order's items.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '../../shared/config';
import { pad } from './entity';
import { batchWriteAll } from '../batch-write';
import { batchGetAll } from '../batch-get';
import type { OrderRecord } from '../../core/orders/model';
import { canonicalChannel, formerCodesOf } from '../../core/orders/marketplace';
import { cancellationCodes, isConditionalFailure } from './entity';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const orderKey = (id: number) => ({ pk: `ORDER#${id}`, sk: 'ORDER' });
const indexPk = (accountId: number) => `ORDERIDX#${accountId}`;
const metaKey = (accountId: number) => ({ pk: `ORDERMETA#${accountId}`, sk: 'META' });
const channelKey = (accountId: number, channel: string, channelOrderId: string) => ({ pk: `CHORDER#${accountId}#${channel}#${channelOrderId}`, sk: 'CHORDER' });
const numberKey = (accountId: number, orderNumber: string) => ({ pk: `ORDERNO#${accountId}#${orderNumber.toLowerCase()}`, sk: 'ORDERNO' });
const shipmentKey = (id: number) => ({ pk: `SHIPMENT#${id}`, sk: 'SHIPMENT' });
const trackingKey = (trackingNumber: string) => ({ pk: `TRACKING#${trackingNumber.toUpperCase()}`, sk: 'TRACKING' });
const watchKey = (shipmentId: number) => ({ pk: 'TRACKWATCH', sk: pad(shipmentId) });
const sortKey = (o: { createdAt: string; id: number }) => `${o.createdAt}#${pad(o.id)}`;

/** What a list filters and searches on, one small row per order. */
export interface IndexRow {
  id: number;
  orderNumber: string;
  status: string;
  fulfillmentStatus: string;
  channel: string;
  customerName: string;
  createdAt: string;
}

const indexRowOf = (o: OrderRecord) => ({
  pk: indexPk(o.accountId),
  sk: sortKey(o),
  i: o.id,
  n: o.orderNumber,
  s: o.status,
  f: o.fulfillmentStatus,
  c: o.storedChannel ?? o.channel,
  m: o.customer.name,
  t: o.createdAt,
});

const table = () => config.tableName();

function orderItem(o: OrderRecord) {
  const { storedChannel, ...record } = o;
  return { ...orderKey(o.id), ...record, channel: storedChannel ?? o.channel, kind: 'order', gsi1pk: `ACCOUNT#${o.accountId}#ORDERS`, gsi1sk: sortKey(o) };
}

function strip(item: Record<string, unknown> | undefined): OrderRecord | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, kind: _k, gsi1pk: _g, gsi1sk: _s, ...rest } = item;
  const order = rest as unknown as OrderRecord;
  // Stored before the rename: read as the current code; writes keep the stored one until the migration.
  const channel = canonicalChannel(order.channel);
  return channel === order.channel ? order : { ...order, channel, storedChannel: order.channel };
}

/** Which uniqueness key a create lost to. */
export type CreateOutcome = 'created' | 'number_taken' | 'channel_taken';

/** A new order, its index row and its uniqueness keys, all or nothing. */
export async function insertOrder(order: OrderRecord, keys: { number?: boolean; channel?: boolean }): Promise<CreateOutcome> {
  const items: TransactItem[] = [
    { Put: { TableName: table(), Item: orderItem(order), ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: table(), Item: indexRowOf(order) } },
  ];
  const reasons: (CreateOutcome | 'order')[] = ['order', 'order'];
  if (keys.number) {
    items.push({ Put: { TableName: table(), Item: { ...numberKey(order.accountId, order.orderNumber), orderId: order.id }, ConditionExpression: 'attribute_not_exists(pk)' } });
    reasons.push('number_taken');
  }
  if (keys.channel && order.channelOrderId) {
    items.push({ Put: { TableName: table(), Item: { ...channelKey(order.accountId, order.channel, order.channelOrderId), orderId: order.id }, ConditionExpression: 'attribute_not_exists(pk)' } });
    reasons.push('channel_taken');
    // An order imported under a former code of the channel holds this channel order id too.
    for (const former of formerCodesOf(order.channel)) {
      items.push({ ConditionCheck: { TableName: table(), Key: channelKey(order.accountId, former, order.channelOrderId), ConditionExpression: 'attribute_not_exists(pk)' } });
      reasons.push('channel_taken');
    }
  }
  const failed = await transact(items);
  if (failed === undefined) {
    await bumpMeta(order.accountId, 1);
    return 'created';
  }
  const lost = reasons[failed];
  if (lost === 'order' || lost === 'created') throw new Error(`order ${order.id} already exists`);
  return lost;
}

/**
 * Replaces `before` with `next` (the caller set `next.version` to the next one) if the order is
 * still at `before.version`; `extra` writes join the same transaction. The list row and the
 * account's version move only when a listed field changed (a note does not stale the lists).
 * False when another write got there first.
 */
export async function replaceOrder(next: OrderRecord, before: OrderRecord, extra: TransactItem[] = []): Promise<boolean> {
  const row = indexRowOf(next);
  const listed = JSON.stringify(row) !== JSON.stringify(indexRowOf(before));
  const items: TransactItem[] = [
    {
      Put: {
        TableName: table(),
        Item: orderItem(next),
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': before.version },
      },
    },
    ...(listed ? [{ Put: { TableName: table(), Item: row } }] : []),
    ...extra,
  ];
  const failed = await transact(items);
  if (failed === 0) return false;
  if (failed !== undefined) throw new Error(`order ${next.id}: a companion write of the transaction failed its condition (item ${failed})`);
  if (listed) await bumpMeta(next.accountId, 0);
  return true;
}

/**
 * Loads new orders of one account in bulk (BatchWriteItem: order, index row, channel key), for
 * seeding demo and benchmark data; not for orders that may already exist (no conditions).
 */
export async function loadOrders(accountId: number, orders: OrderRecord[]): Promise<void> {
  function* batches() {
    const writes = orders.flatMap((o) => [
      orderItem(o),
      indexRowOf(o),
      ...(o.channelOrderId ? [{ ...channelKey(o.accountId, o.channel, o.channelOrderId), orderId: o.id }] : []),
      ...(o.channel === 'web' ? [{ ...numberKey(o.accountId, o.orderNumber), orderId: o.id }] : []),
    ]);
    for (let i = 0; i < writes.length; i += 25) yield { RequestItems: { [table()]: writes.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } };
  }
  await batchWriteAll(batches());
  await bumpMeta(accountId, orders.length);
}

/** Runs a transaction; the index of the item whose condition failed, or undefined. */
async function transact(items: TransactItem[]): Promise<number | undefined> {
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: items }));
    return undefined;
  } catch (err) {
    const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    const i = reasons?.findIndex((r) => r.Code === 'ConditionalCheckFailed') ?? -1;
    if (i >= 0) return i;
    throw err;
  }
}

export async function getOrder(id: number): Promise<OrderRecord | undefined> {
  const res = await documentClient().send(new GetCommand({ TableName: table(), Key: orderKey(id), ConsistentRead: true }));
  return strip(res.Item);
}

/** Orders by id, in the order asked (missing ones left out); strongly consistent. */
export async function getOrders(ids: number[]): Promise<OrderRecord[]> {
  const found = new Map((await batchGetAll(ids.map(orderKey))).map((item) => [item.id as number, strip(item)!]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

/**
 * The order a channel order id was imported as: under the channel's current code, else under a
 * former one (imported before the rename and not migrated yet). The migration writes the current
 * key before it deletes the former one, so one of the two reads finds a migrating order.
 */
export async function orderIdByChannel(accountId: number, channel: string, channelOrderId: string): Promise<number | undefined> {
  for (const code of [canonicalChannel(channel), ...formerCodesOf(canonicalChannel(channel))]) {
    const res = await documentClient().send(new GetCommand({ TableName: table(), Key: channelKey(accountId, code, channelOrderId), ConsistentRead: true }));
    if (res.Item) return res.Item.orderId as number;
  }
  return undefined;
}

export async function orderIdByNumber(accountId: number, orderNumber: string): Promise<number | undefined> {
  const res = await documentClient().send(new GetCommand({ TableName: table(), Key: numberKey(accountId, orderNumber), ConsistentRead: true }));
  return res.Item?.orderId as number | undefined;
}

/** The account's order meta: `version` changes with every listed change, `count` is the number of orders. */
export async function orderMeta(accountId: number): Promise<{ version: number; count: number }> {
  const res = await documentClient().send(new GetCommand({ TableName: table(), Key: metaKey(accountId), ConsistentRead: true }));
  return { version: (res.Item?.version as number) ?? 0, count: (res.Item?.count as number) ?? 0 };
}

async function bumpMeta(accountId: number, added: number): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: table(),
      Key: metaKey(accountId),
      UpdateExpression: 'ADD #v :one, #c :added',
      ExpressionAttributeNames: { '#v': 'version', '#c': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':added': added },
    }),
  );
}

/** Every index row of the account, newest first, read consistently. */
export async function readIndex(accountId: number): Promise<IndexRow[]> {
  const rows: IndexRow[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': indexPk(accountId) },
        ProjectionExpression: 'i, n, s, f, c, m, t',
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const r of res.Items ?? []) {
      rows.push({ id: r.i, orderNumber: r.n, status: r.s, fulfillmentStatus: r.f, channel: canonicalChannel(r.c as string), customerName: r.m, createdAt: r.t });
    }
    start = res.LastEvaluatedKey;
  } while (start);
  return rows;
}

/**
 * The benchmark's yardstick: the newest `limit` orders of an account straight from DynamoDB,
 * one Query on the account's orders index, nothing else.
 */
export async function bareOrdersQuery(accountId: number, limit: number): Promise<Record<string, unknown>[]> {
  const res = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}#ORDERS` },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return res.Items ?? [];
}

/** Pointers to an order from its shipment's id and tracking number, written with the shipment. */
export function shipmentPointers(s: { id: number; trackingNumber: string; accountId: number; orderId: number }): TransactItem[] {
  const pointer = { shipmentId: s.id, orderId: s.orderId, accountId: s.accountId };
  return [
    { Put: { TableName: table(), Item: { ...shipmentKey(s.id), ...pointer }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: table(), Item: { ...trackingKey(s.trackingNumber), ...pointer } } },
  ];
}

export interface ShipmentPointer {
  shipmentId: number;
  orderId: number;
  accountId: number;
}

export async function shipmentPointer(id: number): Promise<ShipmentPointer | undefined> {
  const res = await documentClient().send(new GetCommand({ TableName: table(), Key: shipmentKey(id), ConsistentRead: true }));
  return res.Item as ShipmentPointer | undefined;
}

export async function trackingPointer(trackingNumber: string): Promise<ShipmentPointer | undefined> {
  const res = await documentClient().send(new GetCommand({ TableName: table(), Key: trackingKey(trackingNumber), ConsistentRead: true }));
  return res.Item as ShipmentPointer | undefined;
}

// ---------------------------------------------------------------------------------------------
// Former channel codes: the migration's part (lambdas/services/orders/channel-migration.ts)

/** An index row that still holds a former channel code. */
export interface FormerChannelRow {
  sk: string;
  id: number;
  former: string;
}

/**
 * A page of the account's index rows whose `c` is a former code, after the row `after` (a sort
 * key); `next` is where the following page starts, undefined at the end.
 */
export async function formerChannelRows(accountId: number, formers: readonly string[], after?: string, limit = 500): Promise<{ rows: FormerChannelRow[]; next?: string }> {
  const values = Object.fromEntries(formers.map((f, i) => [`:f${i}`, f]));
  const res = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: `c IN (${Object.keys(values).join(', ')})`,
      ExpressionAttributeValues: { ':pk': indexPk(accountId), ...values },
      ProjectionExpression: 'sk, i, c',
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: after === undefined ? undefined : { pk: indexPk(accountId), sk: after },
    }),
  );
  return {
    rows: (res.Items ?? []).map((r) => ({ sk: r.sk as string, id: r.i as number, former: r.c as string })),
    next: res.LastEvaluatedKey?.sk as string | undefined,
  };
}

/** What `migrateFormerChannel` rewrote of one order; `conflict` says why it left the order as it was. */
export interface FormerChannelOutcome {
  key: boolean;
  order: boolean;
  row: boolean;
  conflict?: string;
}

/**
 * Rewrites one order stored under a former channel code to the current code, every write
 * conditional, so it is safe to repeat and beside the running service:
 *
 * 1. the channel key: in one transaction the current key is put (unless it names another order)
 *    and the former one deleted (if it still names this order); a re-sync between the two finds one
 *    of them, so it never imports the order again;
 * 2. the order's `channel`, if it still holds the former code (a write by the service since stored
 *    the current code already: reads give the current code);
 * 3. the index row's `c`, last, so a run that stopped midway finds the row again.
 *
 * When the current key already names another order (a duplicate made outside this code), nothing is
 * rewritten and the conflict is answered for an operator to resolve.
 */
export async function migrateFormerChannel(accountId: number, row: FormerChannelRow): Promise<FormerChannelOutcome> {
  const current = canonicalChannel(row.former);
  const out: FormerChannelOutcome = { key: false, order: false, row: false };
  const raw = (await documentClient().send(new GetCommand({ TableName: table(), Key: orderKey(row.id), ConsistentRead: true }))).Item;
  const channelOrderId = typeof raw?.channelOrderId === 'string' ? raw.channelOrderId : undefined;
  if (channelOrderId !== undefined) {
    const currentKey = { TableName: table(), Item: { ...channelKey(accountId, current, channelOrderId), orderId: row.id }, ConditionExpression: 'attribute_not_exists(pk) OR orderId = :id', ExpressionAttributeValues: { ':id': row.id } };
    const formerKey = { TableName: table(), Key: channelKey(accountId, row.former, channelOrderId), ConditionExpression: 'orderId = :id', ExpressionAttributeValues: { ':id': row.id } };
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: currentKey }, { Delete: formerKey }] }));
      out.key = true;
    } catch (err) {
      const codes = cancellationCodes(err);
      if (!codes) throw err;
      const taken = async () => {
        const other = (await documentClient().send(new GetCommand({ TableName: table(), Key: channelKey(accountId, current, channelOrderId), ConsistentRead: true }))).Item?.orderId;
        return `order ${row.id}: ${current} order ${channelOrderId} is already order ${other}; left under ${row.former}`;
      };
      if (codes[0] === 'ConditionalCheckFailed') return { ...out, conflict: await taken() };
      if (codes[1] !== 'ConditionalCheckFailed') return { ...out, conflict: `order ${row.id}: its channel key was being written; run the migration again` };
      // No former key naming this order (moved by an earlier run, or never written): the current one must be there.
      try {
        await documentClient().send(new PutCommand(currentKey));
      } catch (e) {
        if (!isConditionalFailure(e)) throw e;
        return { ...out, conflict: await taken() };
      }
    }
  }
  // The order's version moves too: a write that read the former code (and would store it again) loses its condition and reads again.
  if (raw && raw.channel === row.former) out.order = await setIf(orderKey(row.id), 'channel', row.former, current, { bumpVersion: true });
  out.row = await setIf({ pk: indexPk(accountId), sk: row.sk }, 'c', row.former, current);
  return out;
}

/** Sets `attribute` to `to` if it is still `from`; false when it was not. */
async function setIf(key: Record<string, string>, attribute: string, from: string, to: string, opts: { bumpVersion?: boolean } = {}): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: opts.bumpVersion ? 'SET #a = :to ADD version :one' : 'SET #a = :to',
        ConditionExpression: '#a = :from',
        ExpressionAttributeNames: { '#a': attribute },
        ExpressionAttributeValues: { ':to': to, ':from': from, ...(opts.bumpVersion ? { ':one': 1 } : {}) },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Shipments the tracking poll follows (issue 18 item 5)

/**
 * One small row per shipment of an external carrier that is not final yet (`TRACKWATCH`, sorted
 * by shipment id): the scheduled tracking poll reads these, never the orders. Written in the ship
 * transaction, deleted in the transaction that makes the shipment final (delivered, returned) or
 * voids its label, so the partition holds only the shipments still moving.
 */
export interface TrackingWatch {
  shipmentId: number;
  orderId: number;
  accountId: number;
  carrier: string;
  trackingNumber: string;
}

export function trackingWatch(w: TrackingWatch): TransactItem {
  return { Put: { TableName: table(), Item: { ...watchKey(w.shipmentId), ...w } } };
}

export function trackingWatchDone(shipmentId: number): TransactItem {
  return { Delete: { TableName: table(), Key: watchKey(shipmentId) } };
}

/** Up to `limit` watched shipments after shipment id `after` (exclusive), in id order. */
export async function watchedShipments(after: number, limit: number): Promise<TrackingWatch[]> {
  const res = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND sk > :after',
      ExpressionAttributeValues: { ':pk': 'TRACKWATCH', ':after': pad(after) },
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (res.Items ?? []).map((i) => ({ shipmentId: i.shipmentId, orderId: i.orderId, accountId: i.accountId, carrier: i.carrier, trackingNumber: i.trackingNumber }));
}

export async function forgetWatchedShipment(shipmentId: number): Promise<void> {
  await documentClient().send(new DeleteCommand({ TableName: table(), Key: watchKey(shipmentId) }));
}
