import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTwin } from '#support/twin';
import { recordEvents } from '#support/events';
import { amazonOrders, mercadolibreOrders, shopifyOrders, startFakeAmazon, startFakeMercadoLibre, startFakeShopify, type FakeAmazon, type FakeMercadoLibre, type FakeShopify } from '#twin/fake-marketplaces';
import { scheduledSync } from '#services/orders/sync';

const t = useTwin();
const events = recordEvents();
let shopify: FakeShopify;
let ml: FakeMercadoLibre;
let amazon: FakeAmazon;

beforeAll(async () => {
  [shopify, ml, amazon] = await Promise.all([startFakeShopify({ count: 23, seed: 1 }), startFakeMercadoLibre({ count: 120, seed: 2 }), startFakeAmazon({ count: 25, seed: 3 })]);
});
afterAll(async () => {
  await Promise.all([shopify?.close(), ml?.close(), amazon?.close()]);
});

async function connectAll(token: string) {
  const put = (channel: string, body: unknown) => t.call('PUT', `/v1/orders/marketplaces/${channel}`, { token, body });
  expect((await put('shopify', { base_url: shopify.baseUrl, credentials: { accessToken: shopify.token } })).status).toBe(200);
  expect((await put('meli', { base_url: ml.baseUrl, credentials: { accessToken: ml.token, sellerId: ml.sellerId } })).status).toBe(200);
  expect((await put('amazon', { base_url: amazon.baseUrl, credentials: { accessToken: amazon.token, marketplaceId: amazon.marketplaceId } })).status).toBe(200);
}

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

describe('marketplace sync', () => {
  it('imports every order of the three marketplaces once, and a re-sync updates without duplicating', async () => {
    shopify.setOrders(shopifyOrders(23, 1));
    ml.setOrders(mercadolibreOrders(120, 2));
    amazon.setOrders(amazonOrders(25, 3));
    const m = await t.account('Tienda Sync');
    await connectAll(m.token);
    const listed = await t.call('GET', '/v1/orders/marketplaces', { token: m.token });
    expect(listed.body.data.marketplaces.map((c: { channel: string }) => c.channel).sort()).toEqual(['amazon', 'meli', 'shopify']);
    expect(listed.text).not.toContain(shopify.token);

    // Amazon reads 30 days back without `since`; the fakes' orders are from 2025.
    const started = await t.call('POST', '/v1/orders/sync', { token: m.token, body: { since: '2020-01-01T00:00:00Z' } });
    expect(started.status).toBe(202);
    expect(started.body.data).toMatchObject({ status: 'processing', channels: ['amazon', 'meli', 'shopify'], since: '2020-01-01T00:00:00.000Z' });
    expect(started.body.data.sync_id).toMatch(/^sync_/);
    expect((await t.call('POST', '/v1/orders/sync', { token: m.token, body: {} })).status).toBe(409);

    const first = await settle(m.token);
    expect(first.last_sync).toMatchObject({ sync_id: started.body.data.sync_id, status: 'completed' });
    expect(first.last_sync.completed_at).toBeTruthy();
    expect(first.last_sync.channels.shopify).toMatchObject({ orders_synced: 23, orders_new: 23, orders_updated: 0 });
    expect(first.last_sync.channels.meli).toMatchObject({ orders_synced: 120, orders_new: 120, orders_updated: 0 });
    expect(first.last_sync.channels.amazon).toMatchObject({ orders_synced: 25, orders_new: 25, orders_updated: 0 });
    expect(Date.parse(first.next_scheduled_sync)).toBeGreaterThan(Date.now());
    const total = async (qs = '') => (await t.call('GET', `/v1/orders?per_page=1${qs}`, { token: m.token })).body.data.pagination.total;
    expect(await total()).toBe(168);
    expect(await total('&channel=shopify')).toBe(23);
    expect(events.filter((e) => e.type === 'order.created')).toHaveLength(168);

    const mlId = String(ml.orders[5].id);
    ml.mutate(mlId, (o) => (o.status = 'cancelled'));
    const again = await t.call('POST', '/v1/orders/sync', { token: m.token, body: { channels: ['meli', 'shopify'], since: '2020-01-01T00:00:00Z' } });
    expect(again.status).toBe(202);
    const second = await settle(m.token);
    expect(second.last_sync.channels.meli).toMatchObject({ orders_synced: 120, orders_new: 0, orders_updated: 1 });
    expect(second.last_sync.channels.shopify).toMatchObject({ orders_synced: 23, orders_new: 0, orders_updated: 0 });
    expect(await total()).toBe(168);
    const cancelled = (await t.call('GET', '/v1/orders?channel=meli&status=cancelled&per_page=100', { token: m.token })).body.data.orders;
    expect(cancelled.map((o: { channel_order_id: string }) => o.channel_order_id)).toContain(mlId);
  });

  it('a sync without since reads what changed since the last one, and sees a change to an old order', async () => {
    shopify.setOrders(shopifyOrders(23, 11));
    ml.setOrders(mercadolibreOrders(120, 12));
    amazon.setOrders(amazonOrders(25, 13));
    const m = await t.account('Tienda Cambios');
    await connectAll(m.token);

    await t.call('POST', '/v1/orders/sync', { token: m.token, body: { since: '2020-01-01T00:00:00Z' } });
    const full = await settle(m.token);
    expect(full.last_sync.channels.meli).toMatchObject({ orders_synced: 120, orders_new: 120 });

    // The first sync without since has no earlier one to start from: it reads the APIs' defaults.
    await t.call('POST', '/v1/orders/sync', { token: m.token, body: {} });
    const baseline = await settle(m.token);
    expect(baseline.last_sync).toMatchObject({ status: 'completed', since: null });
    expect(baseline.last_sync.channels.meli).toMatchObject({ orders_new: 0, orders_updated: 0 });

    const oldMl = String(ml.orders[3].id);
    ml.mutate(oldMl, (o) => (o.status = 'cancelled'));
    const oldAmazon = amazon.orders[1].AmazonOrderId;
    amazon.mutate(oldAmazon, (o) => (o.OrderStatus = 'Canceled'));
    ml.requests.length = 0;
    amazon.requests.length = 0;
    await t.call('POST', '/v1/orders/sync', { token: m.token, body: {} });
    const changed = await settle(m.token);
    expect(changed.last_sync.status).toBe('completed');
    expect(changed.last_sync.channels.meli).toMatchObject({ orders_synced: 1, orders_new: 0, orders_updated: 1 });
    expect(changed.last_sync.channels.amazon).toMatchObject({ orders_synced: 1, orders_new: 0, orders_updated: 1 });
    expect(changed.last_sync.channels.shopify).toMatchObject({ orders_synced: 0, orders_new: 0, orders_updated: 0 });
    expect(ml.requests.find((r) => r.path === '/orders/search')!.query['order.last_updated.from']).toBeTruthy();
    expect(amazon.requests.find((r) => r.path === '/orders/v0/orders')!.query.LastUpdatedAfter).toBeTruthy();
    const cancelled = (await t.call('GET', '/v1/orders?status=cancelled&per_page=100', { token: m.token })).body.data.orders;
    expect(cancelled.map((o: { channel_order_id: string }) => o.channel_order_id)).toEqual(expect.arrayContaining([oldMl, oldAmazon]));
  });

  it('retries a 429, keeps going past malformed records and reports them', async () => {
    shopify.setOrders(shopifyOrders(12, 4));
    const m = await t.account('Tienda Reintentos');
    await t.call('PUT', '/v1/orders/marketplaces/shopify', { token: m.token, body: { base_url: shopify.baseUrl, credentials: { accessToken: shopify.token } } });
    shopify.malform(3, 'bad-amount');
    shopify.requests.length = 0;
    shopify.rateLimitOn(1, 1);
    await t.call('POST', '/v1/orders/sync', { token: m.token, body: {} });
    const done = await settle(m.token);
    expect(done.last_sync.status).toBe('completed');
    expect(done.last_sync.channels.shopify).toMatchObject({ orders_synced: 11, orders_new: 11, orders_rejected: 1 });
    expect(done.last_sync.channels.shopify.rejected[0].reason).toBeTruthy();
    expect(shopify.requests.some((r) => r.status === 429)).toBe(true);
  });

  it('reports a marketplace order too large to store as rejected with its size, and syncing an order again keeps one synced entry', async () => {
    const orders = shopifyOrders(3, 21);
    const big = orders[0] as { lineItems: { nodes: Record<string, unknown>[] } };
    const line = big.lineItems.nodes[0];
    big.lineItems.nodes = Array.from({ length: 500 }, (_, j) => ({ ...line, id: `gid://shopify/LineItem/${800_000 + j}`, sku: `BIG-${j}`, name: '€'.repeat(300) }));
    shopify.setOrders(orders);
    const m = await t.account('Tienda Grande');
    await t.call('PUT', '/v1/orders/marketplaces/shopify', { token: m.token, body: { base_url: shopify.baseUrl, credentials: { accessToken: shopify.token } } });
    await t.call('POST', '/v1/orders/sync', { token: m.token, body: { since: '2020-01-01T00:00:00Z' } });
    const done = await settle(m.token);
    expect(done.last_sync.status).toBe('completed');
    expect(done.last_sync.channels.shopify).toMatchObject({ orders_new: 2, orders_rejected: 1 });
    expect(done.last_sync.channels.shopify.rejected[0].reason).toMatch(/takes \d+ KB as stored, over the 250 KB/);

    const id = (orders[1] as { id: string }).id.split('/').pop()!;
    for (let n = 1; n <= 3; n++) {
      shopify.mutate(id, (o) => (o.note = `change ${n}`));
      await t.call('POST', '/v1/orders/sync', { token: m.token, body: {} });
      expect((await settle(m.token)).last_sync.channels.shopify).toMatchObject({ orders_updated: 1 });
    }
    const listed = (await t.call('GET', '/v1/orders?per_page=10', { token: m.token })).body.data.orders;
    const mine = listed.find((o: { channel_order_id: string }) => o.channel_order_id.endsWith(id));
    const detail = (await t.call('GET', `/v1/orders/${mine.id}`, { token: m.token })).body.data;
    expect(detail.timeline.filter((e: { event: string }) => e.event === 'synced')).toHaveLength(1);
  });

  it('records a channel that refuses the credentials as failed without stopping the others', async () => {
    amazon.setOrders(amazonOrders(5, 5));
    shopify.setOrders(shopifyOrders(4, 6));
    const m = await t.account('Tienda Claves');
    await t.call('PUT', '/v1/orders/marketplaces/amazon', { token: m.token, body: { base_url: amazon.baseUrl, credentials: { accessToken: 'wrong', marketplaceId: amazon.marketplaceId } } });
    await t.call('PUT', '/v1/orders/marketplaces/shopify', { token: m.token, body: { base_url: shopify.baseUrl, credentials: { accessToken: shopify.token } } });
    await t.call('POST', '/v1/orders/sync', { token: m.token, body: { since: '2020-01-01T00:00:00Z' } });
    const done = await settle(m.token);
    expect(done.last_sync.status).toBe('completed_with_errors');
    expect(done.last_sync.channels.amazon.status).toBe('failed');
    expect(done.last_sync.channels.amazon.error).toBeTruthy();
    expect(done.last_sync.channels.shopify).toMatchObject({ status: 'completed', orders_new: 4 });
  });

  it('refuses channels that are not connected or not syncable, and bad since', async () => {
    const m = await t.account('Tienda Sin Conexión');
    const none = await t.call('POST', '/v1/orders/sync', { token: m.token, body: {} });
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.errors)).toEqual(['channels']);
    expect((await t.call('POST', '/v1/orders/sync', { token: m.token, body: { channels: ['ebay'] } })).status).toBe(422);
    expect((await t.call('POST', '/v1/orders/sync', { token: m.token, body: { channels: ['shopify'] } })).status).toBe(422);
    expect(Object.keys((await t.call('POST', '/v1/orders/sync', { token: m.token, body: { since: 'last week' } })).body.errors)).toEqual(['since']);
    const status = await t.call('GET', '/v1/orders/sync/status', { token: m.token });
    expect(status.body.data.last_sync).toBeNull();
    expect((await t.call('PUT', '/v1/orders/marketplaces/etsy', { token: m.token, body: { credentials: { a: 'b' } } })).status).toBe(404);
    expect((await t.call('PUT', '/v1/orders/marketplaces/shopify', { token: m.token, body: { credentials: {} } })).status).toBe(422);
  });

  it('refuses at connect, naming the fields, credentials a connector cannot use, and stores nothing', async () => {
    const m = await t.account('Credential Names SRL');
    const put = (channel: string, credentials: Record<string, string>) => t.call('PUT', `/v1/orders/marketplaces/${channel}`, { token: m.token, body: { base_url: shopify.baseUrl, credentials } });
    const snake = await put('shopify', { access_token: 'shpat_x' });
    expect(snake.status).toBe(422);
    expect(snake.body.errors.credentials).toEqual(['Missing accessToken: shopify takes accessToken, shop.', 'Unknown field access_token: shopify takes accessToken, shop.']);
    const half = await t.call('PUT', '/v1/orders/marketplaces/meli', { token: m.token, body: { base_url: ml.baseUrl, credentials: { accessToken: ml.token } } });
    expect(half.status).toBe(422);
    expect(half.body.errors.credentials).toEqual(['Missing sellerId: meli takes accessToken, sellerId.']);
    const blank = await t.call('PUT', '/v1/orders/marketplaces/amazon', { token: m.token, body: { base_url: amazon.baseUrl, credentials: { accessToken: '   ', marketplaceId: amazon.marketplaceId } } });
    expect(blank.body.errors.credentials).toEqual(['Missing accessToken: amazon takes accessToken, marketplaceId.']);
    expect((await t.call('GET', '/v1/orders/marketplaces', { token: m.token })).body.data.marketplaces).toEqual([]);
    expect((await put('shopify', { accessToken: shopify.token, shop: 'acme' })).status).toBe(200);
  });

  it('keeps credentials encrypted on the twin and starts a sync per connected account on the schedule', async () => {
    const m = await t.account('Tienda Programada');
    shopify.setOrders(shopifyOrders(3, 7));
    await t.call('PUT', '/v1/orders/marketplaces/shopify', { token: m.token, body: { base_url: shopify.baseUrl, credentials: { accessToken: 'secret-token-visible-nowhere' } } });
    const onDisk = readFileSync(join(t.dataDir, 'marketplace-credentials.json'), 'utf8');
    expect(onDisk).not.toContain('secret-token-visible-nowhere');
    await t.call('PUT', '/v1/orders/marketplaces/shopify', { token: m.token, body: { base_url: shopify.baseUrl, credentials: { accessToken: shopify.token } } });

    const { started } = await scheduledSync();
    expect(started).toBeGreaterThanOrEqual(1);
    const done = await settle(m.token);
    expect(done.last_sync).toMatchObject({ trigger: 'scheduled', status: 'completed' });
    expect(done.last_sync.channels.shopify.orders_new).toBe(3);
    expect((await t.call('DELETE', '/v1/orders/marketplaces/shopify', { token: m.token })).status).toBe(200);
    expect((await t.call('GET', '/v1/orders/marketplaces', { token: m.token })).body.data.marketplaces).toEqual([]);
  });
});
