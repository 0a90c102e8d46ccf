import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTwin } from '#support/twin';
import { recordEvents } from '#support/events';
import { merchant, placeOrder, shipBody, webOrder } from '#support/orders';
import { importOrder } from '#services/orders/orders';
import type { MarketplaceOrder } from '#core/orders/marketplace';

const t = useTwin();
const events = recordEvents();

function marketplaceOrder(id: string, over: Partial<MarketplaceOrder> = {}): MarketplaceOrder {
  return {
    channelOrderId: id,
    orderNumber: `ML-${id}`,
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

describe('POST /v1/orders (web store)', () => {
  it('creates a web order with totals computed to the cent and answers the detail form', async () => {
    const m = await merchant(t, 'Tienda Uno');
    const res = await t.call('POST', '/v1/orders', { token: m.token, body: webOrder() });
    expect(res.status).toBe(201);
    const o = res.body.data;
    expect(o).toMatchObject({
      channel: 'web',
      channel_order_id: null,
      status: 'processing',
      fulfillment_status: 'unfulfilled',
      financial_status: 'paid',
      customer: { name: 'María Pérez', email: 'maria@example.com', phone: '+54 11 5555 0000' },
      shipping_address: { country: 'AR', postal_code: 'C1043' },
      totals: { subtotal: 20.4, shipping: 5, tax: 1.05, discount: 0.1, total: 26.35, currency: 'USD' },
      notes: null,
      shipments: [],
    });
    expect(o.order_number).toMatch(/^WEB-\d{6}$/);
    expect(o.items).toHaveLength(2);
    expect(o.items[0]).toMatchObject({ sku: 'MUG-01', quantity: 2, quantity_fulfilled: 0, price: 10.1, weight: 0.4, currency: 'USD' });
    expect(Number.isInteger(o.items[0].id) && Number.isInteger(o.items[0].product_id)).toBe(true);
    expect(o.timeline.map((e: { event: string }) => e.event)).toEqual(['order_created', 'payment_received']);
    expect(events.filter((e) => e.type === 'order.created')).toHaveLength(1);
    expect(events.find((e) => e.type === 'order.created')!.data).toMatchObject({ id: o.id, order_number: o.order_number, channel: 'web', totals: { total: 26.35, currency: 'USD' } });
  });

  it('names every bad field and writes nothing', async () => {
    const m = await merchant(t, 'Tienda Mala');
    const res = await t.call('POST', '/v1/orders', {
      token: m.token,
      body: webOrder({ items: [{ sku: 'A', name: 'x', quantity: 0, price: -1 }], currency: 'DOLLARS', customer: { name: '', email: 'nope' } }),
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['currency', 'customer.email', 'customer.name', 'items.0.price', 'items.0.quantity'].sort());
    const list = await t.call('GET', '/v1/orders', { token: m.token });
    expect(list.body.data.pagination.total).toBe(0);
  });

  it('refuses a discount larger than the order, and a taken order number with 409', async () => {
    const m = await merchant(t, 'Tienda Dos');
    expect((await t.call('POST', '/v1/orders', { token: m.token, body: webOrder({ discount: 1000 }) })).status).toBe(422);
    expect((await t.call('POST', '/v1/orders', { token: m.token, body: webOrder({ order_number: 'A-1' }) })).status).toBe(201);
    const again = await t.call('POST', '/v1/orders', { token: m.token, body: webOrder({ order_number: 'a-1' }) });
    expect(again.status).toBe(409);
  });

  it('creates one order when the same Idempotency-Key arrives three times at once', async () => {
    const m = await merchant(t, 'Tienda Tres');
    const key = randomUUID();
    const all = await Promise.all([1, 2, 3].map(() => t.call('POST', '/v1/orders', { token: m.token, body: webOrder(), headers: { 'idempotency-key': key } })));
    const ok = all.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.data.id)).size).toBe(1);
    expect(all.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect((await t.call('GET', '/v1/orders', { token: m.token })).body.data.pagination.total).toBe(1);
  });
});

describe('scopes and tenancy', () => {
  it('needs orders:read to read and orders:write to change', async () => {
    const m = await merchant(t, 'Tienda Scopes');
    const order = await placeOrder(t, m.token);
    const reader = await t.account('Solo lectura', { scopes: ['orders:read'] });
    const writer = await t.account('Solo escritura', { scopes: ['orders:write'] });
    expect((await t.call('GET', '/v1/orders', { token: reader.token })).status).toBe(200);
    expect((await t.call('POST', '/v1/orders', { token: reader.token, body: webOrder() })).status).toBe(403);
    expect((await t.call('GET', '/v1/orders', { token: writer.token })).status).toBe(403);
    expect((await t.call('POST', '/v1/orders', { token: writer.token, body: webOrder() })).status).toBe(201);
    const none = await t.account('Sin scopes', { scopes: [] });
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: none.token })).status).toBe(403);
  });

  it("never shows or changes another account's order", async () => {
    const a = await merchant(t, 'Tienda A');
    const b = await merchant(t, 'Tienda B');
    const order = await placeOrder(t, a.token);
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: b.token })).status).toBe(404);
    expect((await t.call('PUT', `/v1/orders/${order.id}`, { token: b.token, body: { notes: 'x' } })).status).toBe(404);
    expect((await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: b.token, body: {} })).status).toBe(404);
    expect((await t.call('GET', `/v1/orders/${order.id}/shipments`, { token: b.token })).status).toBe(404);
    expect((await t.call('GET', '/v1/orders', { token: b.token })).body.data.orders).toEqual([]);
  });
});

describe('GET /v1/orders', () => {
  it('filters by status, fulfillment, channel, dates and search, with exact pagination', async () => {
    const m = await merchant(t, 'Tienda Lista');
    const web = [];
    for (let i = 0; i < 5; i++) web.push(await placeOrder(t, m.token, { customer: { name: i === 3 ? 'Ñandú Núñez' : `Cliente ${i}`, email: `c${i}@example.com` }, financial_status: i % 2 ? 'paid' : 'pending' }));
    await importOrder(m.accountId, 'meli', marketplaceOrder('2001'));
    await importOrder(m.accountId, 'amazon', marketplaceOrder('111-222', { orderNumber: '111-222', status: 'pending', financialStatus: null }));

    const all = await t.call('GET', '/v1/orders?per_page=3', { token: m.token });
    expect(all.status).toBe(200);
    expect(all.body.data.pagination).toEqual({ current_page: 1, per_page: 3, total: 7, last_page: 3 });
    expect(all.body.data.orders).toHaveLength(3);
    const page3 = await t.call('GET', '/v1/orders?per_page=3&page=3', { token: m.token });
    expect(page3.body.data.orders).toHaveLength(1);
    const ids = new Set<number>();
    for (let p = 1; p <= 3; p++) for (const o of (await t.call('GET', `/v1/orders?per_page=3&page=${p}`, { token: m.token })).body.data.orders) ids.add(o.id);
    expect(ids.size).toBe(7);

    const listed = all.body.data.orders[0];
    expect(Object.keys(listed).sort()).toEqual(['channel', 'channel_order_id', 'created_at', 'customer', 'financial_status', 'fulfillment_status', 'id', 'item_count', 'items', 'order_number', 'shipping_address', 'status', 'totals'].sort());

    const q = async (qs: string) => (await t.call('GET', `/v1/orders?${qs}`, { token: m.token })).body.data;
    expect((await q('channel=meli')).orders.map((o: { channel_order_id: string }) => o.channel_order_id)).toEqual(['2001']);
    expect((await q('status=pending')).pagination.total).toBe(4);
    expect((await q('status=processing&channel=web')).pagination.total).toBe(2);
    expect((await q('fulfillment_status=unfulfilled')).pagination.total).toBe(7);
    expect((await q('search=nandu')).orders.map((o: { id: number }) => o.id)).toEqual([web[3].id]);
    expect((await q(`search=${encodeURIComponent(web[1].order_number.toLowerCase())}`)).orders.map((o: { id: number }) => o.id)).toEqual([web[1].id]);
    expect((await q('date_to=2026-11-02T00:00:00Z')).pagination.total).toBe(2);
    expect((await q('date_from=2026-11-02')).pagination.total).toBe(5);
  });

  it('refuses bad filters with 422 naming the parameter', async () => {
    const m = await merchant(t, 'Tienda Filtros');
    for (const [qs, field] of [
      ['per_page=101', 'per_page'],
      ['page=0', 'page'],
      ['status=lost', 'status'],
      ['channel=etsy', 'channel'],
      ['fulfillment_status=half', 'fulfillment_status'],
      ['date_from=yesterday', 'date_from'],
      ['date_to=2026-13-45', 'date_to'],
    ]) {
      const res = await t.call('GET', `/v1/orders?${qs}`, { token: m.token });
      expect(res.status, qs).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
  });

  it('lists a new order on the very next request', async () => {
    const m = await merchant(t, 'Tienda Fresca');
    await placeOrder(t, m.token);
    expect((await t.call('GET', '/v1/orders', { token: m.token })).body.data.pagination.total).toBe(1);
    const second = await placeOrder(t, m.token);
    const list = await t.call('GET', '/v1/orders', { token: m.token });
    expect(list.body.data.pagination.total).toBe(2);
    expect(list.body.data.orders[0].id).toBe(second.id);
    await t.call('POST', `/v1/orders/${second.id}/cancel`, { token: m.token, body: {} });
    expect((await t.call('GET', '/v1/orders?status=cancelled', { token: m.token })).body.data.orders.map((o: { id: number }) => o.id)).toEqual([second.id]);
  });
});

describe('PUT /v1/orders/:id', () => {
  it('changes notes and address before fulfillment and the status where the channel allows it', async () => {
    const m = await merchant(t, 'Tienda Cambios');
    const order = await placeOrder(t, m.token, { financial_status: 'pending' });
    const res = await t.call('PUT', `/v1/orders/${order.id}`, {
      token: m.token,
      body: { status: 'processing', notes: 'Regalo', shipping_address: { name: 'M P', address1: 'Otra 1', city: 'Rosario', state: 'SF', postal_code: 'S2000', country: 'AR' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: order.id, status: 'processing', notes: 'Regalo', shipping_address: { city: 'Rosario' } });
    expect(res.body.data.updated_at).toBeTruthy();
    const detail = (await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data;
    expect(detail.timeline.map((e: { event: string }) => e.event)).toEqual(['order_created', 'status_processing', 'shipping_address_updated', 'notes_updated']);
    expect(events.filter((e) => e.type === 'order.updated')).toHaveLength(1);

    for (const status of ['shipped', 'cancelled', 'delivered']) {
      expect((await t.call('PUT', `/v1/orders/${order.id}`, { token: m.token, body: { status } })).status, status).toBe(409);
    }
    expect((await t.call('PUT', `/v1/orders/${order.id}`, { token: m.token, body: {} })).status).toBe(422);
    expect((await t.call('PUT', `/v1/orders/${order.id}`, { token: m.token, body: { status: 'lost' } })).status).toBe(422);
  });

  it('leaves the status of marketplace orders to the marketplace', async () => {
    const m = await merchant(t, 'Tienda ML');
    await importOrder(m.accountId, 'meli', marketplaceOrder('3001', { status: 'pending' }));
    const [o] = (await t.call('GET', '/v1/orders?channel=meli', { token: m.token })).body.data.orders;
    const res = await t.call('PUT', `/v1/orders/${o.id}`, { token: m.token, body: { status: 'processing' } });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/managed by the marketplace/);
    expect((await t.call('PUT', `/v1/orders/${o.id}`, { token: m.token, body: { notes: 'ok' } })).status).toBe(200);
  });
});

describe('ship, fulfill, cancel', () => {
  it('ships with a tracking number and a PDF label the account can fetch, partially then fully', async () => {
    const m = await merchant(t, 'Tienda Envíos');
    const order = await placeOrder(t, m.token);
    const [mug, tee] = order.items;
    const first = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: mug.id, quantity: 1 }]) });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ order_id: order.id, carrier: 'despacho', service: 'standard', fulfillment_status: 'partial', notified_customer: true });
    expect(first.body.data.label_url).toMatch(new RegExp(`/api/v1/shipping/shipments/${first.body.data.shipment_id}/label$`));
    expect(first.body.data.tracking_number).toMatch(/^[A-Z0-9]+$/);

    const label = await fetch(first.body.data.label_url, { headers: { authorization: `Bearer ${m.token}` } });
    expect(label.status).toBe(200);
    expect(label.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await label.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    const other = await merchant(t, 'Tienda Ajena');
    expect((await fetch(first.body.data.label_url, { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(404);

    const over = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: mug.id, quantity: 2 }]) });
    expect(over.status).toBe(422);
    expect(Object.keys(over.body.errors)).toEqual(['packages.0.items.0.quantity']);
    const foreign = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: 999999999, quantity: 1 }]) });
    expect(Object.keys(foreign.body.errors)).toEqual(['packages.0.items.0.order_item_id']);
    expect((await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: m.token, body: {} })).status).toBe(409);

    const rest = await t.call('POST', `/v1/orders/${order.id}/ship`, {
      token: m.token,
      body: shipBody([{ order_item_id: mug.id, quantity: 1 }, { order_item_id: tee.id, quantity: 1 }], { service: 'express', notify_customer: false }),
    });
    expect(rest.status).toBe(201);
    expect(rest.body.data).toMatchObject({ fulfillment_status: 'fulfilled', notified_customer: false });

    const detail = (await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data;
    expect(detail).toMatchObject({ status: 'shipped', fulfillment_status: 'fulfilled' });
    expect(detail.items.map((i: { quantity_fulfilled: number }) => i.quantity_fulfilled)).toEqual([2, 1]);
    const shipments = (await t.call('GET', `/v1/orders/${order.id}/shipments`, { token: m.token })).body.data.shipments;
    expect(shipments).toHaveLength(2);
    expect(shipments[0]).toMatchObject({ carrier: 'despacho', status: 'in_transit', items: [{ order_item_id: mug.id, sku: 'MUG-01', quantity: 1 }] });
    const created = events.filter((e) => e.type === 'shipment.created');
    expect(created).toHaveLength(2);
    expect(Object.keys(created[0].data as object).sort()).toEqual(['carrier', 'created_at', 'estimated_delivery', 'label_url', 'order_id', 'service', 'shipment_id', 'tracking_number']);
    expect((await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: tee.id, quantity: 1 }]) })).status).toBe(409);
  });

  it('refuses a carrier without an adapter, an unknown service and a missing warehouse', async () => {
    const m = await merchant(t, 'Tienda Carrier');
    const order = await placeOrder(t, m.token);
    const line = [{ order_item_id: order.items[0].id, quantity: 1 }];
    const bad = async (body: unknown) => (await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body })).body.errors;
    expect(Object.keys(await bad(shipBody(line, { carrier: 'pigeon' })))).toEqual(['carrier']);
    expect(Object.keys(await bad(shipBody(line, { service: 'teleport' })))).toEqual(['service']);
    expect(Object.keys(await bad(shipBody(line, { warehouse_id: 9 })))).toEqual(['warehouse_id']);
    expect(Object.keys(await bad(shipBody(line, { packages: [{ weight: -1, length: 1, width: 1, height: 1, items: line }] })))).toEqual(['packages.0.weight']);
    const detail = (await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data;
    expect(detail.shipments).toEqual([]);
  });

  it('ships once for one Idempotency-Key sent twice', async () => {
    const m = await merchant(t, 'Tienda Reintento');
    const order = await placeOrder(t, m.token);
    const key = randomUUID();
    const body = shipBody([{ order_item_id: order.items[0].id, quantity: 1 }]);
    const a = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body, headers: { 'idempotency-key': key } });
    const b = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body, headers: { 'idempotency-key': key } });
    expect(b.body.data.shipment_id).toBe(a.body.data.shipment_id);
    expect((await t.call('GET', `/v1/orders/${order.id}/shipments`, { token: m.token })).body.data.shipments).toHaveLength(1);
  });

  it('fulfills with an outside tracking number, partially by items or everything left', async () => {
    const m = await merchant(t, 'Tienda Externa');
    const order = await placeOrder(t, m.token);
    const part = await t.call('POST', `/v1/orders/${order.id}/fulfill`, { token: m.token, body: { tracking_number: '1Z999AA10123456784', carrier: 'ups', items: [{ order_item_id: order.items[1].id, quantity: 1 }] } });
    expect(part.status).toBe(200);
    expect(part.body.data).toMatchObject({ order_id: order.id, fulfillment_status: 'partial', tracking_number: '1Z999AA10123456784', carrier: 'ups' });
    const all = await t.call('POST', `/v1/orders/${order.id}/fulfill`, { token: m.token, body: { tracking_number: 'FX123', carrier: 'fedex' } });
    expect(all.body.data.fulfillment_status).toBe('fulfilled');
    expect((await t.call('POST', `/v1/orders/${order.id}/fulfill`, { token: m.token, body: { tracking_number: 'FX124', carrier: 'fedex' } })).status).toBe(409);
    expect((await t.call('POST', `/v1/orders/${order.id}/fulfill`, { token: m.token, body: { carrier: 'fedex' } })).status).toBe(422);
    const shipments = (await t.call('GET', `/v1/orders/${order.id}/shipments`, { token: m.token })).body.data.shipments;
    expect(shipments.map((s: { label_url: string | null }) => s.label_url)).toEqual([null, null]);
  });

  it('cancels an unfulfilled order once, and answers a repeat with the same cancelled_at', async () => {
    const m = await merchant(t, 'Tienda Cancela');
    const order = await placeOrder(t, m.token);
    const res = await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: m.token, body: { reason: 'customer asked' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_id: order.id, status: 'cancelled' });
    const again = await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: m.token, body: {} });
    expect(again.body.data.cancelled_at).toBe(res.body.data.cancelled_at);
    expect(events.filter((e) => e.type === 'order.cancelled')).toHaveLength(1);
    expect((await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }]) })).status).toBe(409);
    expect((await t.call('PUT', `/v1/orders/${order.id}`, { token: m.token, body: { shipping_address: webOrder().shipping_address } })).status).toBe(409);
  });
});

describe('tracking updates and stock', () => {
  it('delivers: shipment.delivered once, and the order becomes delivered when every shipment is', async () => {
    const m = await merchant(t, 'Tienda Entrega');
    const order = await placeOrder(t, m.token);
    const a = (await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 2 }]) })).body.data;
    const b = (await t.call('POST', `/v1/orders/${order.id}/fulfill`, { token: m.token, body: { tracking_number: 'EXT-1', carrier: 'dhl' } })).body.data;
    const upd = (tracking: string, status: string) => t.call('POST', '/v1/shipping/tracking-updates', { token: m.token, body: { tracking_number: tracking, status } });
    expect((await upd(a.tracking_number, 'delivered')).body.data.order_status).toBe('shipped');
    expect((await upd(a.tracking_number, 'delivered')).body.message).toBe('No change.');
    expect((await upd(b.tracking_number, 'out_for_delivery')).status).toBe(200);
    const last = await upd(b.tracking_number, 'delivered');
    expect(last.body.data.order_status).toBe('delivered');
    expect(events.filter((e) => e.type === 'shipment.delivered')).toHaveLength(2);
    expect((await upd(a.tracking_number, 'in_transit')).status).toBe(409);
    expect((await upd('NOPE123', 'delivered')).status).toBe(404);
    const other = await merchant(t, 'Tienda Intrusa');
    expect((await t.call('POST', '/v1/shipping/tracking-updates', { token: other.token, body: { tracking_number: a.tracking_number, status: 'delivered' } })).status).toBe(404);
  });

  it('takes shipped quantities off tracked stock and announces a fall below the threshold once', async () => {
    const m = await merchant(t, 'Tienda Stock');
    const set = await t.call('PUT', '/v1/inventory/MUG-01', { token: m.token, body: { stock: 5, threshold: 4, warehouse_id: 1, name: 'Taza' } });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ sku: 'MUG-01', current_stock: 5, threshold: 4, warehouse_id: 1, warehouse_name: 'Depósito Central', low_stock: false });
    expect((await t.call('PUT', '/v1/inventory/X-1', { token: m.token, body: { stock: 5, threshold: 4, warehouse_id: 7 } })).status).toBe(422);

    const o1 = await placeOrder(t, m.token);
    await t.call('POST', `/v1/orders/${o1.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: o1.items[0].id, quantity: 2 }]) });
    const o2 = await placeOrder(t, m.token);
    await t.call('POST', `/v1/orders/${o2.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: o2.items[0].id, quantity: 1 }]) });
    const low = events.filter((e) => e.type === 'inventory.low_stock');
    expect(low).toHaveLength(1);
    expect(low[0].data).toEqual({ product_id: set.body.data.product_id, sku: 'MUG-01', name: 'Taza', current_stock: 3, threshold: 4, warehouse_id: 1, warehouse_name: 'Depósito Central' });
    const inv = (await t.call('GET', '/v1/inventory', { token: m.token })).body.data.products;
    expect(inv.find((p: { sku: string }) => p.sku === 'MUG-01')).toMatchObject({ current_stock: 2, low_stock: true });
    expect(o1.items[0].product_id).toBe(set.body.data.product_id);

    await t.call('PUT', '/v1/inventory/MUG-01', { token: m.token, body: { stock: 10, threshold: 4, warehouse_id: 1 } });
    const o3 = await placeOrder(t, m.token, { items: [{ sku: 'MUG-01', name: 'Taza', quantity: 7, price: 1 }] });
    await t.call('POST', `/v1/orders/${o3.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: o3.items[0].id, quantity: 7 }]) });
    expect(events.filter((e) => e.type === 'inventory.low_stock')).toHaveLength(2);
  });
});

describe('marketplace upserts', () => {
  it('imports once by channel order id, applies newer records only and never moves status back', async () => {
    const m = await merchant(t, 'Tienda Upsert');
    expect(await importOrder(m.accountId, 'meli', marketplaceOrder('5001'))).toBe('new');
    const both = await Promise.all([importOrder(m.accountId, 'meli', marketplaceOrder('5002')), importOrder(m.accountId, 'meli', marketplaceOrder('5002'))]);
    expect(both.sort()).toEqual(['new', 'unchanged']);
    expect(await importOrder(m.accountId, 'meli', marketplaceOrder('5001'))).toBe('unchanged');
    expect(await importOrder(m.accountId, 'meli', marketplaceOrder('5001', { updatedAt: '2026-11-02T00:00:00.000Z', status: 'shipped' }))).toBe('updated');
    expect(await importOrder(m.accountId, 'meli', marketplaceOrder('5001', { updatedAt: '2026-11-03T00:00:00.000Z', status: 'processing' }))).toBe('updated');
    const list = (await t.call('GET', '/v1/orders?channel=meli', { token: m.token })).body.data;
    expect(list.pagination.total).toBe(2);
    const o = list.orders.find((x: { channel_order_id: string }) => x.channel_order_id === '5001');
    expect(o.status).toBe('shipped');
    expect(await importOrder(m.accountId, 'meli', marketplaceOrder('5002', { updatedAt: '2026-11-04T00:00:00.000Z', status: 'cancelled' }))).toBe('updated');
    expect(events.filter((e) => e.type === 'order.cancelled')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'order.created')).toHaveLength(2);
  });
});
