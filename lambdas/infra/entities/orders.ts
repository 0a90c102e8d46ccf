/**
 * Orders in the single table. One item per order (`ORDER#<id>`, read by id with strong
 * consistency) holds the whole record, shipments included; beside it:
 *
 * - an index row per order in the account's partition (`ORDERIDX#<account>`, sorted by creation):
 *   the few fields the list filters on, so a list reads small rows, consistently;
 * - the account's order meta (`ORDERMETA#<account>`): `version`, taken (incremented) by every
 *   change an index row shows before it is written, so a cached index knows when it is stale;
 * - a change item per version (`ORDERCHG#<account>`, kept a day): the index row as that change
 *   left it, written in the change's transaction, so a cached index is brought up to date by
 *   reading the changes since its version instead of the whole index (services/orders/list.ts);
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
import { QueryCommand, TransactWriteCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { queues } from '../queues';
import { config } from '#shared/config';
import { cancellationCodes, isConditionalFailure, pad, type TransactDelete, type TransactItem, type TransactPut } from './entity';
import { batchWriteAll } from '../batch-write';
import { batchGetAll } from '../batch-get';
import type { OrderRecord } from '#core/orders/model';
import { canonicalChannel, formerCodesOf, isFormerChannel } from '#core/orders/marketplace';
import { orders, type OrderEntityItem } from './orders/order';
import { orderRows, type OrderRowItem } from './orders/order-row';
import { orderMetas } from './orders/order-meta';
import { orderChanges } from './orders/order-change';
import { orderChannelKeys } from './orders/order-channel-key';
import { orderNumberKeys } from './orders/order-number-key';
import { shipmentPointers, type ShipmentPointerItem } from './orders/shipment-pointer';
import { trackingPointers } from './orders/tracking-pointer';
import { trackingWatches, type TrackingWatchItem } from './orders/tracking-watch';

export type { TransactItem } from './entity';

/**
 * Items written before these entities (by hand, under the same keys and fields) carry no
 * ElectroDB identifiers: reads do not ask for them.
 */
const read = { ignoreOwnership: true } as const;

/** What a list filters and searches on, one small row per order. */
export type IndexRow = OrderRowItem;

const rowOf = (o: OrderRecord) => ({
  accountId: o.accountId,
  id: o.id,
  idKey: pad(o.id),
  orderNumber: o.orderNumber,
  status: o.status,
  fulfillmentStatus: o.fulfillmentStatus,
  channel: o.storedChannel ?? o.channel,
  customerName: o.customer.name,
  createdAt: o.createdAt,
});

/** The order as stored: under the channel code it was stored with (see the module's notes). */
function stored(o: OrderRecord) {
  const { storedChannel, ...record } = o;
  return { ...record, idKey: pad(o.id), channel: storedChannel ?? o.channel };
}

function fromStored(item: OrderEntityItem | null | undefined): OrderRecord | undefined {
  if (!item) return undefined;
  // The fields that may be null, as stored (ElectroDB types them `any`, and optional: an item may lack one).
  const { channelOrderId, channelUpdatedAt, financialStatus, billingAddress, notes, cancelledAt, cancelReason } = item;
  const order = { ...item, channelOrderId, channelUpdatedAt, financialStatus, billingAddress, notes, cancelledAt, cancelReason };
  const stored = item.channel;
  // Stored before the rename: read as the current code; writes keep the stored one until the migration.
  return isFormerChannel(stored) ? { ...order, channel: canonicalChannel(stored), storedChannel: stored } : { ...order, channel: stored };
}

const orderPut = (o: OrderRecord) => orders().put(stored(o));
const channelKeyOf = (accountId: number, channel: string, channelOrderId: string) => orderChannelKeys().get({ accountId, channel, channelOrderId }).params<{ Key: Record<string, string> }>().Key;

/** Which uniqueness key a create lost to. */
export type CreateOutcome = 'created' | 'number_taken' | 'channel_taken';

/** A new order, its index row and its uniqueness keys, all or nothing. */
export async function insertOrder(order: OrderRecord, keys: { number?: boolean; channel?: boolean }): Promise<CreateOutcome> {
  const version = await takeVersion(order.accountId, 1);
  const items: TransactItem[] = [
    { Put: orders().create(stored(order)).params() },
    { Put: orderRows().put(rowOf(order)).params() },
    changeWrite(order.accountId, version, rowOf(order)),
  ];
  const reasons: (CreateOutcome | 'order')[] = ['order', 'order', 'order'];
  if (keys.number) {
    items.push({ Put: orderNumberKeys().create({ accountId: order.accountId, orderNumber: order.orderNumber.toLowerCase(), orderId: order.id }).params() });
    reasons.push('number_taken');
  }
  if (keys.channel && order.channelOrderId) {
    items.push({ Put: orderChannelKeys().create({ accountId: order.accountId, channel: order.channel, channelOrderId: order.channelOrderId, orderId: order.id }).params() });
    reasons.push('channel_taken');
    // An order imported under a former code of the channel holds this channel order id too.
    for (const former of formerCodesOf(order.channel)) {
      items.push({ ConditionCheck: { TableName: config.tableName(), Key: channelKeyOf(order.accountId, former, order.channelOrderId), ConditionExpression: 'attribute_not_exists(pk)' } });
      reasons.push('channel_taken');
    }
  }
  const failed = await transact(items);
  if (failed === undefined) {
    await countOrders(order.accountId, 1);
    return 'created';
  }
  await noopChange(order.accountId, version);
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
  const row = rowOf(next);
  const listed = JSON.stringify(row) !== JSON.stringify(rowOf(before));
  const listVersion = listed ? await takeVersion(next.accountId, 1) : undefined;
  const items: TransactItem[] = [
    { Put: orderPut(next).where(({ version }, { eq }) => eq(version, before.version)).params<TransactPut>() },
    ...(listVersion !== undefined ? [{ Put: orderRows().put(row).params<TransactPut>() }, changeWrite(next.accountId, listVersion, row)] : []),
    ...extra,
  ];
  const failed = await transact(items);
  if (failed !== undefined && listVersion !== undefined) await noopChange(next.accountId, listVersion);
  if (failed === 0) return false;
  if (failed !== undefined) throw new Error(`order ${next.id}: a companion write of the transaction failed its condition (item ${failed})`);
  return true;
}

/**
 * Loads new orders of one account in bulk (BatchWriteItem: order, index row, channel key), for
 * seeding demo and benchmark data; not for orders that may already exist (no conditions).
 */
export async function loadOrders(accountId: number, list: OrderRecord[]): Promise<void> {
  const requests = (writes: { params<T>(): T }[]) => writes.map((w) => w.params<{ Item: Record<string, unknown> }>().Item);
  const last = await takeVersion(accountId, list.length);
  const ttl = changeTtl();
  function* batches() {
    const writes = list.flatMap((o, k) =>
      requests([
        orderPut(o),
        orderRows().put(rowOf(o)),
        orderChanges().put({ ...changeOf(accountId, last - list.length + 1 + k, rowOf(o)), ttl }),
        ...(o.channelOrderId ? [orderChannelKeys().put({ accountId: o.accountId, channel: o.channel, channelOrderId: o.channelOrderId, orderId: o.id })] : []),
        ...(o.channel === 'web' ? [orderNumberKeys().put({ accountId: o.accountId, orderNumber: o.orderNumber.toLowerCase(), orderId: o.id })] : []),
      ]),
    );
    for (let i = 0; i < writes.length; i += 25) yield { RequestItems: { [config.tableName()]: writes.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } };
  }
  await batchWriteAll(batches());
  await countOrders(accountId, list.length);
}

/** Runs a transaction; the index of the item whose condition failed, or undefined. */
async function transact(items: TransactItem[]): Promise<number | undefined> {
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: items }));
    return undefined;
  } catch (err) {
    const i = cancellationCodes(err)?.indexOf('ConditionalCheckFailed') ?? -1;
    if (i >= 0) return i;
    throw err;
  }
}

export async function getOrder(id: number): Promise<OrderRecord | undefined> {
  return fromStored((await orders().get({ id }).go({ consistent: true, ...read })).data);
}

/** Orders by id, in the order asked (missing ones left out); strongly consistent. */
export async function getOrders(ids: number[]): Promise<OrderRecord[]> {
  const keys = ids.map((id) => orders().get({ id }).params<{ Key: Record<string, unknown> }>().Key);
  const found = new Map<number, OrderRecord>();
  for (const item of await batchGetAll(keys)) {
    const order = fromStored(orders().parse({ Item: item }, read).data);
    if (order) found.set(order.id, order);
  }
  return ids.flatMap((id) => found.get(id) ?? []);
}

/**
 * The order a channel order id was imported as: under the channel's current code, else under a
 * former one (imported before the rename and not migrated yet). The migration writes the current
 * key before it deletes the former one, so one of the two reads finds a migrating order.
 */
export async function orderIdByChannel(accountId: number, channel: string, channelOrderId: string): Promise<number | undefined> {
  for (const code of [canonicalChannel(channel), ...formerCodesOf(canonicalChannel(channel))]) {
    const found = (await orderChannelKeys().get({ accountId, channel: code, channelOrderId }).go({ consistent: true, ...read })).data;
    if (found) return found.orderId;
  }
  return undefined;
}

export async function orderIdByNumber(accountId: number, orderNumber: string): Promise<number | undefined> {
  return (await orderNumberKeys().get({ accountId, orderNumber: orderNumber.toLowerCase() }).go({ consistent: true, ...read })).data?.orderId;
}

/**
 * The account's order meta: `version` changes with every listed change, `count` is the number of
 * orders, `viewVersion` is the version of the account's order snapshot (-1: none yet).
 */
export async function orderMeta(accountId: number): Promise<{ version: number; count: number; viewVersion: number }> {
  const meta = (await orderMetas().get({ accountId }).go({ consistent: true, ...read })).data;
  return { version: meta?.version ?? 0, count: meta?.count ?? 0, viewVersion: meta?.viewVersion ?? -1 };
}

/**
 * Takes the next `n` versions of the account's orders (the last one answered): a change's version
 * is taken before it is written, so a reader that sees the version finds the change item once
 * the write is done (or a `noop` when it lost its condition). When the versions taken are the
 * first after the account's snapshot, or cross a multiple of `viewEvery` past it, a new snapshot
 * is asked for (`viewDue`), before the change is written: a write whose message could not be sent
 * fails, and its retry asks again.
 */
async function takeVersion(accountId: number, n: number): Promise<number> {
  const res = await orderMetas().update({ accountId }).add({ version: n }).go({ response: 'all_new' });
  const last = Number(res.data.version);
  const due = viewDue(last - n, last, res.data.viewVersion ?? -1);
  if (due !== undefined) await queues().send('orderViews', { accountId, version: last }, { delaySeconds: due });
  return last;
}

/** Versions past the snapshot's at which a writer asks for a new snapshot at once. */
export const viewEvery = 250;
/** How long the first change after a snapshot waits for more before its snapshot is made. */
export const settleSeconds = 300;

/**
 * Whether the versions (`before`, `last`] ask for a new snapshot of the account, whose snapshot
 * is at `viewVersion` (-1: none): the delay in seconds, or undefined. An account with no snapshot
 * yet counts from version 0, so its first change asks for one.
 */
export function viewDue(before: number, last: number, viewVersion: number): number | undefined {
  const since = Math.max(viewVersion, 0);
  if (Math.floor((last - since) / viewEvery) > Math.floor(Math.max(0, before - since) / viewEvery)) return 0;
  if (before <= since && last > since) return settleSeconds;
  return undefined;
}

/**
 * Records that the account's snapshot is at `version` (only upwards); answers the account's
 * version as it is now.
 */
export async function recordViewVersion(accountId: number, version: number): Promise<number> {
  try {
    const res = await orderMetas()
      .update({ accountId })
      .set({ viewVersion: version })
      .where(({ viewVersion }, { notExists, lt }) => `${notExists(viewVersion)} OR ${lt(viewVersion, version)}`)
      .go({ response: 'all_new' });
    return Number(res.data.version ?? 0);
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return (await orderMeta(accountId)).version;
  }
}

async function countOrders(accountId: number, added: number): Promise<void> {
  await orderMetas().update({ accountId }).add({ count: added }).go({ response: 'none' });
}

/** How long a change item is kept: a day (a list's cache reads the whole index again after 12 hours). */
const changeSeconds = 24 * 3600;
const changeTtl = () => Math.floor(Date.now() / 1000) + changeSeconds;

const changeOf = (accountId: number, version: number, row: ReturnType<typeof rowOf>) => {
  const { accountId: _a, idKey: _k, ...fields } = row;
  return { accountId, version, versionKey: pad(version), ...fields };
};

function changeWrite(accountId: number, version: number, row: ReturnType<typeof rowOf>): TransactItem {
  return { Put: orderChanges().put({ ...changeOf(accountId, version, row), ttl: changeTtl() }).params<TransactPut>() };
}

/** A version whose write lost its condition: said so, so a reader does not wait for it. */
async function noopChange(accountId: number, version: number): Promise<void> {
  await orderChanges()
    .put({ accountId, version, versionKey: pad(version), noop: true, ttl: changeTtl() })
    .go({ response: 'none' });
}

/** A change of the index as a reader applies it: the row it left, or none (`noop`). */
export interface IndexChange {
  version: number;
  row?: IndexRow;
}

/**
 * The account's changes with versions in [from, to], oldest first, read consistently; at most
 * `limit` (the caller reads the whole index instead past that).
 */
export async function readChanges(accountId: number, from: number, to: number, limit: number): Promise<IndexChange[]> {
  const found = await orderChanges()
    .query.byAccount({ accountId })
    .between({ versionKey: pad(from) }, { versionKey: pad(to) })
    .go({ pages: 'all', limit, consistent: true, ...read });
  return found.data.map((c) =>
    c.noop || c.id === undefined
      ? { version: c.version }
      : {
          version: c.version,
          row: {
            id: c.id,
            orderNumber: c.orderNumber!,
            status: c.status!,
            fulfillmentStatus: c.fulfillmentStatus!,
            channel: canonicalChannel(c.channel!),
            customerName: c.customerName!,
            createdAt: c.createdAt!,
          } as IndexRow,
        },
  );
}

/** Every index row of the account, newest first, read consistently. */
export async function readIndex(accountId: number): Promise<IndexRow[]> {
  const found = await orderRows()
    .query.byAccount({ accountId })
    .go({ pages: 'all', order: 'desc', consistent: true, attributes: ['id', 'orderNumber', 'status', 'fulfillmentStatus', 'channel', 'customerName', 'createdAt'], ...read });
  return found.data.map((r) => ({ ...r, channel: canonicalChannel(r.channel) }));
}

/**
 * The benchmark's yardstick: the newest `limit` orders of an account straight from DynamoDB,
 * one Query on the account's orders index, nothing else (no parsing).
 */
export async function bareOrdersQuery(accountId: number, limit: number): Promise<Record<string, unknown>[]> {
  const params = orders().query.byAccount({ accountId }).params<QueryCommandInput>({ order: 'desc', ...read });
  const res = await documentClient().send(new QueryCommand({ ...params, Limit: limit }));
  return res.Items ?? [];
}

/** Pointers to an order from its shipment's id and tracking number, written with the shipment. */
export function shipmentPointerWrites(s: { id: number; trackingNumber: string; accountId: number; orderId: number }): TransactItem[] {
  const to = { shipmentId: s.id, orderId: s.orderId, accountId: s.accountId };
  return [
    { Put: shipmentPointers().create(to).params() },
    { Put: trackingPointers().put({ ...to, trackingNumber: s.trackingNumber.toUpperCase() }).params() },
  ];
}

export type ShipmentPointer = ShipmentPointerItem;

export async function shipmentPointer(id: number): Promise<ShipmentPointer | undefined> {
  const found = (await shipmentPointers().get({ shipmentId: id }).go({ consistent: true, ...read })).data;
  return found ? { shipmentId: found.shipmentId, orderId: found.orderId, accountId: found.accountId } : undefined;
}

export async function trackingPointer(trackingNumber: string): Promise<ShipmentPointer | undefined> {
  const found = (await trackingPointers().get({ trackingNumber: trackingNumber.toUpperCase() }).go({ consistent: true, ...read })).data;
  return found ? { shipmentId: found.shipmentId, orderId: found.orderId, accountId: found.accountId } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Former channel codes: the migration's part (lambdas/services/orders/channel-migration.ts)

/** An index row that still holds a former channel code; `sk` is where the next page starts after it. */
export interface FormerChannelRow {
  sk: string;
  id: number;
  createdAt: string;
  former: OrderRowItem['channel'];
}

/**
 * A page of the account's index rows whose channel is a former code, after the row `after` (a
 * sort key); `next` is where the following page starts, undefined at the end. `limit` rows are
 * read per page (DynamoDB's Limit, before the filter), so a page may hold fewer.
 */
export async function formerChannelRows(accountId: number, formers: readonly string[], after?: string, limit = 500): Promise<{ rows: FormerChannelRow[]; next?: string }> {
  const params = orderRows()
    .query.byAccount({ accountId })
    .where(({ channel }, { eq }) => formers.map((f) => eq(channel, f)).join(' OR '))
    .params<QueryCommandInput & { ExpressionAttributeValues: Record<string, unknown> }>({ consistent: true, ...read });
  const pk = params.ExpressionAttributeValues[':pk'];
  const res = await documentClient().send(new QueryCommand({ ...params, Limit: limit, ExclusiveStartKey: after === undefined ? undefined : { pk, sk: after } }));
  return {
    rows: (res.Items ?? []).map((item) => {
      const r = orderRows().parse({ Item: item }, read).data!;
      return { sk: item.sk, id: r.id, createdAt: r.createdAt, former: r.channel };
    }),
    next: res.LastEvaluatedKey?.sk,
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
 * 3. the index row's channel, last, so a run that stopped midway finds the row again.
 *
 * When the current key already names another order (a duplicate made outside this code), nothing is
 * rewritten and the conflict is answered for an operator to resolve.
 */
export async function migrateFormerChannel(accountId: number, row: FormerChannelRow): Promise<FormerChannelOutcome> {
  const current = canonicalChannel(row.former);
  const out: FormerChannelOutcome = { key: false, order: false, row: false };
  // As stored: the channel code is not read as the current one here.
  const raw = (await orders().get({ id: row.id }).go({ consistent: true, ...read })).data;
  const channelOrderId = typeof raw?.channelOrderId === 'string' ? raw.channelOrderId : undefined;
  if (channelOrderId !== undefined) {
    const currentKey = orderChannelKeys()
      .put({ accountId, channel: current, channelOrderId, orderId: row.id })
      .where(({ orderId }, { notExists, eq }) => `${notExists(orderId)} OR ${eq(orderId, row.id)}`);
    const formerKey = orderChannelKeys()
      .delete({ accountId, channel: row.former, channelOrderId })
      .where(({ orderId }, { eq }) => eq(orderId, row.id));
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: currentKey.params() }, { Delete: formerKey.params() }] }));
      out.key = true;
    } catch (err) {
      const codes = cancellationCodes(err);
      if (!codes) throw err;
      const taken = async () => {
        const other = (await orderChannelKeys().get({ accountId, channel: current, channelOrderId }).go({ consistent: true, ...read })).data?.orderId;
        return `order ${row.id}: ${current} order ${channelOrderId} is already order ${other}; left under ${row.former}`;
      };
      if (codes[0] === 'ConditionalCheckFailed') return { ...out, conflict: await taken() };
      if (codes[1] !== 'ConditionalCheckFailed') return { ...out, conflict: `order ${row.id}: its channel key was being written; run the migration again` };
      // No former key naming this order (moved by an earlier run, or never written): the current one must be there.
      try {
        await currentKey.go({ response: 'none' });
      } catch (e) {
        if (!isConditionalFailure(e)) throw e;
        return { ...out, conflict: await taken() };
      }
    }
  }
  // The order's version moves too: a write that read the former code (and would store it again) loses its condition and reads again.
  if (raw && raw.channel === row.former) {
    out.order = await unlessLost(
      orders()
        .patch({ id: row.id })
        .set({ channel: current })
        .add({ version: 1 })
        .where(({ channel }, { eq }) => eq(channel, row.former))
        .go({ response: 'none' }),
    );
  }
  out.row = await unlessLost(
    orderRows()
      .patch({ accountId, createdAt: row.createdAt, idKey: pad(row.id) })
      .set({ channel: current })
      .where(({ channel }, { eq }) => eq(channel, row.former))
      .go({ response: 'none' }),
  );
  return out;
}

/** True once the conditional write is done; false when its condition failed. */
async function unlessLost(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Shipments the tracking poll follows (issue 18 item 5)

export type TrackingWatch = TrackingWatchItem;

export function trackingWatch(w: TrackingWatch): TransactItem {
  return { Put: trackingWatches().put({ ...w, shipmentKey: pad(w.shipmentId) }).params<TransactPut>() };
}

export function trackingWatchDone(shipmentId: number): TransactItem {
  return { Delete: trackingWatches().delete({ shipmentKey: pad(shipmentId) }).params<TransactDelete>() };
}

/** Up to `limit` watched shipments after shipment id `after` (exclusive), in id order. */
export async function watchedShipments(after: number, limit: number): Promise<TrackingWatch[]> {
  const found = await trackingWatches().query.all({}).gt({ shipmentKey: pad(after) }).go({ limit, consistent: true, ...read });
  return found.data.map((w) => ({ shipmentId: w.shipmentId, orderId: w.orderId, accountId: w.accountId, carrier: w.carrier, trackingNumber: w.trackingNumber }));
}

export async function forgetWatchedShipment(shipmentId: number): Promise<void> {
  await trackingWatches().delete({ shipmentKey: pad(shipmentId) }).go({ response: 'none' });
}
