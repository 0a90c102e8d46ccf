import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { recordEvents } from '#support/events';
import { connectBeforeRename, importBeforeRename, keys, rawItem, syncBeforeRename } from '#support/former-channels';
import { mercadolibreOrders, readAll, startFakeMercadoLibre, type FakeMercadoLibre } from '#twin/fake-marketplaces';
import { mercadolibreConnector } from '#infra/marketplaces/mercadolibre';
import { importOrder, importedOrder } from '#services/orders/orders';
import { insertOrder } from '#infra/entities/orders';
import type { MarketplaceOrder } from '#core/orders/marketplace';

/** Issue 17, item 2: `meli` is Mercado Libre's code; `mercadolibre` is an input alias and the code of data stored before. */
const t = useTwin();
const events = recordEvents();
let ml: FakeMercadoLibre;

beforeAll(async () => {
  ml = await startFakeMercadoLibre({ count: 12, seed: 7 });
});
afterAll(async () => {
  await ml?.close();
});

function mlOrder(id: string, over: Partial<MarketplaceOrder> = {}): MarketplaceOrder {
  return {
    channelOrderId: id,
    orderNumber: id,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    status: 'processing',
    financialStatus: 'paid',
    customer: { name: 'Juan Gómez', email: 'juan@example.com', phone: null },
    shippingAddress: { name: 'Juan Gómez', address1: 'Florida 100', city: 'Córdoba', state: 'Córdoba', postal_code: 'X5000', country: 'AR' },
    billingAddress: null,
    items: [{ channelItemId: 'MLA1', sku: 'CASE-9', name: 'Funda', quantity: 1, price: 12.5, weight: 0.1 }],
    currency: 'ARS',
    totals: { subtotal: 12.5, shipping: 0, tax: 0, discount: 0, total: 12.5 },
    ...over,
  };
}

const merchant = (name: string) => t.account(name);

/** Runs queued jobs until the sync is no longer processing. */
async function settle(token: string) {
  for (let i = 0; i < 100; i++) {
    await t.twin.jobs.runDue();
    const s = await t.call('GET', '/v1/orders/sync/status', { token });
    if (s.body.data.last_sync && s.body.data.last_sync.status !== 'processing') return s.body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('sync did not finish');
}

describe('channel codes: meli, with mercadolibre accepted as an alias', () => {
  it('mercadolibre on input (the path, the sync body) is accepted as an alias and answered as meli', async () => {
    const m = await merchant('Alias Tienda');
    const connected = await t.call('PUT', '/v1/orders/marketplaces/mercadolibre', { token: m.token, body: { base_url: ml.baseUrl, credentials: { accessToken: ml.token, sellerId: ml.sellerId } } });
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ message: 'meli connected.', data: { channel: 'meli' } });
    expect((await t.call('GET', '/v1/orders/marketplaces', { token: m.token })).body.data.marketplaces.map((c: { channel: string }) => c.channel)).toEqual(['meli']);

    const started = await t.call('POST', '/v1/orders/sync', { token: m.token, body: { channels: ['mercadolibre'], since: '2020-01-01T00:00:00Z' } });
    expect(started.status).toBe(202);
    expect(started.body.data.channels).toEqual(['meli']);
    const done = await settle(m.token);
    expect(Object.keys(done.last_sync.channels)).toEqual(['meli']);
    expect(done.last_sync.channels.meli).toMatchObject({ status: 'completed', orders_new: 12 });
    const listed = (await t.call('GET', '/v1/orders?per_page=100', { token: m.token })).body.data.orders;
    expect(new Set(listed.map((o: { channel: string }) => o.channel))).toEqual(new Set(['meli']));
    const created = events.filter((e) => e.type === 'order.created' && (e.data as { id: number }).id === listed[0].id);
    expect(created).toHaveLength(1);
    expect(created[0].data).toMatchObject({ channel: 'meli' });
    expect(JSON.stringify(events.filter((e) => listed.some((o: { id: number }) => o.id === (e.data as { id: number }).id)))).not.toContain('mercadolibre');

    const gone = await t.call('DELETE', '/v1/orders/marketplaces/mercadolibre', { token: m.token });
    expect(gone.body).toMatchObject({ success: true, message: 'meli disconnected.' });
    expect((await t.call('GET', '/v1/orders/marketplaces', { token: m.token })).body.data.marketplaces).toEqual([]);
  });

  it('the order list filters by meli and by mercadolibre alike', async () => {
    const m = await merchant('Filtro Tienda');
    await importOrder(m.accountId, 'meli', mlOrder('8001'));
    await importOrder(m.accountId, 'amazon', mlOrder('8002'));
    for (const channel of ['meli', 'mercadolibre']) {
      const res = await t.call('GET', `/v1/orders?channel=${channel}`, { token: m.token });
      expect(res.status, channel).toBe(200);
      expect(res.body.data.orders.map((o: { channel: string; channel_order_id: string }) => [o.channel, o.channel_order_id])).toEqual([['meli', '8001']]);
    }
  });

  it('an unknown channel code is refused with 422 naming the field and the codes, the alias among them (404 in the path)', async () => {
    const m = await merchant('Codigo Malo');
    const list = await t.call('GET', '/v1/orders?channel=mercado', { token: m.token });
    expect(list.status).toBe(422);
    expect(list.body.errors.channel[0]).toBe('Must be one of web, amazon, meli, shopify, ebay (mercadolibre is accepted for meli).');
    // In the path, a code that names no marketplace is a resource that is not there, as for ids.
    for (const code of ['MELI', 'ebay']) expect((await t.call('PUT', `/v1/orders/marketplaces/${code}`, { token: m.token, body: { credentials: { accessToken: 'x' } } })).status, code).toBe(404);
    const sync = await t.call('POST', '/v1/orders/sync', { token: m.token, body: { channels: ['meli', 'ml'] } });
    expect(sync.status).toBe(422);
    expect(Object.keys(sync.body.errors)).toEqual(['channels.1']);
  });

  it('a legacy stored order (channel mercadolibre in the order, its index row and its key) reads as meli and lists under either filter', async () => {
    const m = await merchant('Legado Pedidos');
    const order = await importBeforeRename(m.accountId, mlOrder('9001'));
    expect((await rawItem(keys.order(order.id)))!.channel).toBe('mercadolibre');
    expect((await rawItem(keys.indexRow(order)))!.c).toBe('mercadolibre');

    const shown = await t.call('GET', `/v1/orders/${order.id}`, { token: m.token });
    expect(shown.body.data).toMatchObject({ channel: 'meli', channel_order_id: '9001' });
    for (const channel of ['meli', 'mercadolibre']) {
      const listed = (await t.call('GET', `/v1/orders?channel=${channel}`, { token: m.token })).body.data.orders;
      expect(listed.map((o: { id: number; channel: string }) => [o.id, o.channel]), channel).toEqual([[order.id, 'meli']]);
    }
    // A marketplace order's status belongs to its marketplace, under either code.
    const put = await t.call('PUT', `/v1/orders/${order.id}`, { token: m.token, body: { status: 'pending' } });
    expect(put.status).toBe(409);
    expect(put.body.message).toContain('meli orders is managed by the marketplace');
    // Changed since, it reads as meli and stays stored as it was (order, row and key move together, by the migration).
    const noted = await t.call('PUT', `/v1/orders/${order.id}`, { token: m.token, body: { notes: 'legado' } });
    expect(noted.status).toBe(200);
    expect(noted.body.data.id).toBe(order.id);
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data).toMatchObject({ channel: 'meli', notes: 'legado' });
    expect((await rawItem(keys.order(order.id)))!.channel).toBe('mercadolibre');
    expect((await rawItem(keys.order(order.id)))!.storedChannel).toBeUndefined();
  });

  it('a re-sync after the rename does not duplicate an order imported before it, and its events say meli', async () => {
    const m = await merchant('Legado Resync');
    const order = await importBeforeRename(m.accountId, mlOrder('9101'));
    expect(await importOrder(m.accountId, 'meli', mlOrder('9101'))).toBe('unchanged');
    expect(await importOrder(m.accountId, 'meli', mlOrder('9101', { updatedAt: '2026-11-02T00:00:00.000Z', status: 'cancelled' }))).toBe('updated');
    const both = await Promise.all([importOrder(m.accountId, 'meli', mlOrder('9101', { updatedAt: '2026-11-03T00:00:00.000Z' })), importOrder(m.accountId, 'meli', mlOrder('9101', { updatedAt: '2026-11-03T00:00:00.000Z' }))]);
    expect(both.sort()).toEqual(['unchanged', 'updated']);
    const listed = (await t.call('GET', '/v1/orders', { token: m.token })).body.data;
    expect(listed.pagination.total).toBe(1);
    expect(listed.orders[0]).toMatchObject({ id: order.id, channel: 'meli', status: 'cancelled' });
    const mine = events.filter((e) => (e.data as { id?: number }).id === order.id);
    expect(mine.map((e) => e.type).sort()).toEqual(['order.cancelled', 'order.updated', 'order.updated']);
    for (const e of mine) expect(e.data).toMatchObject({ channel: 'meli' });
    expect(JSON.stringify(mine)).not.toContain('mercadolibre');
  });

  it('a new order cannot be written under meli while the legacy key holds its channel order id (the write is conditional, not just the lookup)', async () => {
    const m = await merchant('Legado Condicion');
    const legacy = await importBeforeRename(m.accountId, mlOrder('9201'));
    const again = importedOrder(m.accountId, 'meli', mlOrder('9201'), { id: legacy.id + 1_000_000, firstItemId: 1, productIds: new Map([['CASE-9', 1]]), at: new Date().toISOString() });
    expect(await insertOrder(again, { channel: true })).toBe('channel_taken');
    expect(await rawItem(keys.order(again.id))).toBeUndefined();
  });

  it('a legacy stored connection and its credentials still sync, without duplicating the orders imported before the rename', async () => {
    const m = await merchant('Legado Conexion');
    ml.setOrders(mercadolibreOrders(12, 7));
    const connection = { baseUrl: ml.baseUrl, credentials: { accessToken: ml.token, sellerId: ml.sellerId } };
    await connectBeforeRename(m.accountId, connection);
    // Five of the twelve were imported before the rename.
    const mapped = (await readAll(mercadolibreConnector().fetchOrders({ channel: 'meli', ...connection }, {}))).orders;
    for (const o of mapped.slice(0, 5)) await importBeforeRename(m.accountId, o);
    const before = await syncBeforeRename(m.accountId);

    expect((await t.call('GET', '/v1/orders/marketplaces', { token: m.token })).body.data.marketplaces).toEqual([{ channel: 'meli', base_url: ml.baseUrl, updated_at: '2025-01-01T00:00:00.000Z' }]);
    const last = (await t.call('GET', '/v1/orders/sync/status', { token: m.token })).body.data.last_sync;
    expect(last).toMatchObject({ sync_id: before.syncId, channels: { meli: { orders_new: 3 } } });
    expect(Object.keys(last.channels)).toEqual(['meli']);

    const started = await t.call('POST', '/v1/orders/sync', { token: m.token, body: { since: '2020-01-01T00:00:00Z' } });
    expect(started.status).toBe(202);
    expect(started.body.data.channels).toEqual(['meli']);
    const done = await settle(m.token);
    expect(done.last_sync.channels.meli).toMatchObject({ status: 'completed', orders_synced: 12, orders_new: 7 });
    expect((await t.call('GET', '/v1/orders?channel=meli&per_page=1', { token: m.token })).body.data.pagination.total).toBe(12);

    // Connecting meli again replaces the legacy connection; disconnecting removes it all.
    expect((await t.call('PUT', '/v1/orders/marketplaces/meli', { token: m.token, body: { base_url: ml.baseUrl, credentials: { accessToken: ml.token, sellerId: ml.sellerId } } })).status).toBe(200);
    expect(await rawItem(keys.connection(m.accountId, 'mercadolibre'))).toBeUndefined();
    expect((await t.call('GET', '/v1/orders/marketplaces', { token: m.token })).body.data.marketplaces.map((c: { channel: string }) => c.channel)).toEqual(['meli']);
    await connectBeforeRename(m.accountId, connection);
    expect((await t.call('DELETE', '/v1/orders/marketplaces/meli', { token: m.token })).status).toBe(200);
    expect((await t.call('GET', '/v1/orders/marketplaces', { token: m.token })).body.data.marketplaces).toEqual([]);
    expect(await rawItem(keys.connection(m.accountId, 'mercadolibre'))).toBeUndefined();
    const sync = await t.call('POST', '/v1/orders/sync', { token: m.token, body: {} });
    expect(sync.status).toBe(422);
  });
});
