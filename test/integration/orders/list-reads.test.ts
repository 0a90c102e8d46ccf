/**
 * What a request of GET /v1/orders reads (issue 41 item 4): the account's snapshot (kept by the
 * order-views worker) and the changes since it, then only the changes since the version it holds;
 * the whole index only when the snapshot cannot be used. Measured with DynamoDB's own count of the
 * items and read units (twin/read-meter.ts) on DynamoDB Local.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { placeOrder } from '#support/orders';
import { meterReads, type ReadMeter } from '#twin/read-meter';
import { seedOrders } from '#twin/seed-orders';
import { forgetCachedRows, maxChanges } from '#services/orders/list';
import { refreshView } from '#services/orders/list-view';
import { orderMeta, viewEvery } from '#infra/entities/orders';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { blobs } from '#infra/blobs';
import { orderMetas } from '#infra/entities/orders/order-meta';
import { orderChanges } from '#infra/entities/orders/order-change';
import { pad } from '#infra/entities/entity';

const t = useTwin();
const seeded = 3_000;
let merchant: { accountId: number; token: string };
let meter: ReadMeter;

/** Runs the order-views worker on what is due; how many snapshots it made or found current. */
const views = () => t.twin.jobs.runDue(['orderViews']);

beforeAll(async () => {
  merchant = await t.account('Many Orders');
  await seedOrders(merchant.accountId, seeded);
  meter = meterReads();
}, 120_000);
afterAll(() => meter?.stop());
afterEach(() => useSystemClock());

async function list(query = '') {
  meter.take();
  const res = await t.call('GET', `/v1/orders${query}`, { token: merchant.token });
  expect(res.status).toBe(200);
  const reads = meter.take();
  return { body: res.body, index: reads.get('ORDERIDX') ?? { items: 0, units: 0 }, changes: reads.get('ORDERCHG') ?? { items: 0, units: 0 } };
}

const snapshotKey = () => `views/orders/${merchant.accountId}.json.gz`;

describe('the order list reads the changes since its version, not the index again', () => {
  let fullUnits = 0;

  it("starts a new account's first list from the snapshot the worker made as the orders came, and a list that nothing changed since reads no row", async () => {
    // The seeding's versions crossed multiples of viewEvery: the worker was asked at once.
    expect(await views()).toBeGreaterThanOrEqual(1);
    const meta = await orderMeta(merchant.accountId);
    expect(meta.viewVersion).toBe(meta.version);
    const first = await list();
    expect(first.body.data.pagination.total).toBe(seeded);
    expect(first.index.items).toBe(0);
    expect(first.changes.items).toBe(0);
    const again = await list();
    expect(again.body.data.pagination.total).toBe(seeded);
    expect(again.index.items + again.changes.items).toBe(0);
    // What reading the whole index costs, for the comparisons below.
    const units = meter.take();
    await import('#infra/entities/orders').then((m) => m.readIndex(merchant.accountId));
    fullUnits = meter.take().get('ORDERIDX')!.units;
    expect(fullUnits).toBeGreaterThan(units.get('ORDERIDX')?.units ?? 0);
  });

  it('lists a cancellation and a new order on the very next request, reading one change item each', async () => {
    const pending = await list('?status=pending&per_page=1');
    const order = pending.body.data.orders[0];
    const before = (await list('?status=cancelled')).body.data.pagination.total;
    expect((await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: merchant.token, body: {} })).status).toBe(200);
    const cancelled = await list('?status=cancelled');
    expect(cancelled.body.data.pagination.total).toBe(before + 1);
    expect(cancelled.index.items).toBe(0);
    expect(cancelled.changes.items).toBe(1);
    expect(cancelled.changes.units).toBeLessThan(fullUnits / 100);

    const placed = await placeOrder(t, merchant.token, { customer: { name: 'Ñandú Pérez', email: 'n@example.com', phone: null } });
    const found = await list('?search=nandu');
    expect(found.body.data.orders.map((o: { id: number }) => o.id)).toEqual([placed.id]);
    expect(found.index.items).toBe(0);
    expect(found.changes.items).toBe(1);
  });

  it('goes past a version whose writer died before writing, and applies a change that lands late', async () => {
    const total = (await list()).body.data.pagination.total;
    const other = (await list('?status=pending&per_page=1')).body.data.orders[0];
    // A writer takes a version and dies (or is still in flight): no change item under it.
    const taken = Number((await orderMetas().update({ accountId: merchant.accountId }).add({ version: 1 }).go({ response: 'updated_new' })).data.version);
    const placed = await placeOrder(t, merchant.token);
    const after = await list();
    expect(after.body.data.pagination.total).toBe(total + 1);
    expect(after.index.items).toBe(0);
    // Its transaction lands (another order: a write to the placed one would have lost its
    // condition): the row it wrote, the other order cancelled, is listed by the next request.
    await orderChanges()
      .put({ accountId: merchant.accountId, version: taken, versionKey: pad(taken), id: other.id, orderNumber: other.order_number, status: 'cancelled', fulfillmentStatus: other.fulfillment_status, channel: other.channel, customerName: other.customer.name, createdAt: other.created_at, ttl: Math.floor(Date.now() / 1000) + 3600 })
      .go();
    const late = await list('?status=cancelled&search=' + encodeURIComponent(other.order_number));
    expect(late.body.data.orders.map((o: { id: number }) => o.id)).toEqual([other.id]);
    expect(late.index.items).toBe(0);
  });

  it("starts a new function's rows from the account's snapshot and the changes since it, not the index", async () => {
    const warm = await list('?per_page=5');
    // A change after the snapshot, then a function that holds no rows of the account.
    const order = (await list('?status=pending&per_page=1')).body.data.orders[0];
    expect((await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: merchant.token, body: {} })).status).toBe(200);
    forgetCachedRows();
    const fresh = await list('?per_page=5');
    expect(fresh.index.items).toBe(0);
    expect(fresh.changes.items).toBeLessThanOrEqual(viewEvery);
    expect(fresh.body.data.pagination.total).toBe(warm.body.data.pagination.total);
    expect(fresh.body.data.orders.map((o: { id: number }) => o.id)).toEqual(warm.body.data.orders.map((o: { id: number }) => o.id));
    const cancelled = await list(`?status=cancelled&search=${encodeURIComponent(order.order_number)}`);
    expect(cancelled.body.data.orders.map((o: { id: number }) => o.id)).toEqual([order.id]);
  });

  it('makes the snapshot five minutes after the first change past it, and an account quiet for longer than the changes are kept still lists from it', async () => {
    const clock = manualClock();
    useClock(clock);
    const order = (await list('?status=pending&per_page=1')).body.data.orders[0];
    expect((await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: merchant.token, body: {} })).status).toBe(200);
    // Not before the five minutes: a trickle of changes costs one snapshot per five minutes.
    expect(await views()).toBe(0);
    clock.advance(5 * 60_000 + 1_000);
    expect(await views()).toBeGreaterThanOrEqual(1);
    const { version, viewVersion } = await orderMeta(merchant.accountId);
    expect(viewVersion).toBe(version);
    // A day later (the change items are gone), a new function lists from the snapshot alone.
    clock.advance(25 * 3600_000);
    forgetCachedRows();
    const later = await list(`?status=cancelled&search=${encodeURIComponent(order.order_number)}`);
    expect(later.index.items + later.changes.items).toBe(0);
    expect(later.body.data.orders.map((o: { id: number }) => o.id)).toEqual([order.id]);
  });

  it('makes a snapshot once per version: a repeated or late message reads the meta and writes nothing', async () => {
    const { version } = await orderMeta(merchant.accountId);
    expect(await refreshView({ accountId: merchant.accountId, version })).toBe('current');
    const before = await blobs().get(snapshotKey());
    expect(await refreshView({ accountId: merchant.accountId, version: version - 1 })).toBe('current');
    expect(await blobs().get(snapshotKey())).toEqual(before);
  });

  it('reads the index when the snapshot cannot be read, answers the same, and has the worker write it again', async () => {
    const before = await list('?per_page=5');
    await blobs().put(snapshotKey(), Buffer.from('not a gzip file'), 'application/gzip');
    forgetCachedRows();
    const after = await list('?per_page=5');
    expect(after.index.items).toBe(after.body.data.pagination.total);
    expect(after.body.data.orders).toEqual(before.body.data.orders);
    // The list asked the worker, whatever the meta says of the snapshot's version.
    expect(await views()).toBeGreaterThanOrEqual(1);
    forgetCachedRows();
    expect((await list('?per_page=5')).index.items).toBe(0);
  });

  it(`lists every order after more than ${maxChanges} changes with no list between, reading no index: the writers asked for snapshots on the way`, async () => {
    const total = (await list()).body.data.pagination.total;
    await seedOrders(merchant.accountId, maxChanges + 1);
    await views();
    // The function that holds rows ${maxChanges + 1} versions old, and a new one.
    const held = await list();
    expect(held.body.data.pagination.total).toBe(total + maxChanges + 1);
    expect(held.index.items).toBe(0);
    forgetCachedRows();
    const fresh = await list();
    expect(fresh.body.data.pagination.total).toBe(total + maxChanges + 1);
    expect(fresh.index.items).toBe(0);
    expect(fresh.changes.items).toBeLessThanOrEqual(viewEvery);
  });
});
