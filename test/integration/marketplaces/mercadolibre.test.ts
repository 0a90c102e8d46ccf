import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MarketplaceConnection } from '#core/orders/marketplace';
import { MarketplaceError } from '#infra/marketplaces/http';
import { mercadolibreConnector } from '#infra/marketplaces/mercadolibre';
import { mercadolibreOrders, readAll, recordedSleep, startFakeMercadoLibre, type FakeMercadoLibre, type Raw } from '#twin/fake-marketplaces';

let fake: FakeMercadoLibre;
let connection: MarketplaceConnection;
let clock: ReturnType<typeof recordedSleep>;
const connector = () => mercadolibreConnector({ sleep: clock.sleep });

beforeAll(async () => {
  fake = await startFakeMercadoLibre({ maxOffset: 100 });
  connection = { channel: 'meli', baseUrl: fake.baseUrl, credentials: { accessToken: fake.token, sellerId: fake.sellerId } };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.setOrders(mercadolibreOrders(60, 3));
  fake.requests.length = 0;
  clock = recordedSleep();
});

const ids = (orders: { channelOrderId: string }[]) => orders.map((o) => o.channelOrderId);
const searches = () => fake.requests.filter((r) => r.path === '/orders/search');

function anOrder(overrides: Raw = {}): Raw {
  return {
    id: 2000008123456789,
    date_created: '2025-03-02T10:00:00.000-03:00',
    last_updated: '2025-03-02T11:15:00.000-03:00',
    status: 'paid',
    order_items: [
      { item: { id: 'MLA1400000001', title: 'Taza cerámica', seller_sku: 'MUG-01', variation_id: 174000000001 }, quantity: 2, unit_price: 12500.5, currency_id: 'ARS' },
      { item: { id: 'MLA1400000002', title: 'Funda de teléfono', seller_sku: null, variation_id: null }, quantity: 1, unit_price: 4999, currency_id: 'ARS' },
    ],
    total_amount: 30000,
    paid_amount: 33500,
    currency_id: 'ARS',
    buyer: { id: 301234, nickname: 'ANAPEREZ', first_name: 'Ana', last_name: 'Pérez', email: 'aperez.x1@mail.mercadolibre.com' },
    shipping: { id: 41000000001 },
    tags: ['paid', 'not_delivered'],
    shipment: {
      id: 41000000001,
      receiver_address: {
        street_name: 'Av. Corrientes',
        street_number: '1234',
        comment: 'Piso 3 Dto B',
        city: { name: 'Buenos Aires' },
        state: { name: 'Capital Federal' },
        zip_code: '1043',
        country: { id: 'AR' },
        receiver_name: 'Ana Pérez',
        receiver_phone: '11 5555-1234',
      },
      shipping_option: { cost: 3500 },
    },
    ...overrides,
  };
}

describe('the Mercado Libre connector', () => {
  it('reads every order across pages exactly once, with its shipment', async () => {
    const { pages, orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(ids(orders)).toEqual(fake.orders.map((o) => String(o.id)));
    expect(pages.map((p) => p.orders.length)).toEqual([50, 10]);
    expect(searches().map((r) => r.query)).toEqual([
      { seller: fake.sellerId, sort: 'date_asc', offset: '0', limit: '50' },
      { seller: fake.sellerId, sort: 'date_asc', offset: '50', limit: '50' },
    ]);
    const withShipment = fake.orders.filter((o) => o.shipping.id !== null).length;
    expect(fake.requests.filter((r) => r.path.startsWith('/shipments/'))).toHaveLength(withShipment);
  });

  it('reads only orders created from since, with the date filter in ML format', async () => {
    const since = new Date(Date.parse(fake.orders[30].date_created)).toISOString();
    const { orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(ids(orders)).toEqual(fake.orders.slice(30).map((o) => String(o.id)));
    expect(searches()[0].query['order.date_created.from']).toBe(since.replace('Z', '-00:00'));
  });

  it('reads only orders updated after updatedSince', async () => {
    const updatedSince = new Date(Date.now() - 1000).toISOString();
    const old = String(fake.orders[2].id);
    fake.mutate(old, (o) => {
      o.status = 'cancelled';
    });
    const { orders } = await readAll(connector().fetchOrders(connection, { updatedSince }));
    expect(ids(orders)).toEqual([old]);
    expect(orders[0].status).toBe('cancelled');
    expect(searches()[0].query['order.last_updated.from']).toBe(updatedSince.replace('Z', '-00:00'));
    expect(searches()[0].query['order.date_created.from']).toBeUndefined();
  });

  it('narrows the date window at the offset cap with updatedSince too, reading each changed order once', async () => {
    const orders = mercadolibreOrders(130, 5);
    for (const o of orders.slice(96, 102)) o.date_created = orders[96].date_created;
    fake.setOrders(orders);
    const updatedSince = new Date(Date.now() - 1000).toISOString();
    for (const o of orders) if (Number(o.id) % 3 !== 0) fake.mutate(String(o.id), () => {});
    const changed = fake.orders.filter((o) => Number(o.id) % 3 !== 0).map((o) => String(o.id));
    expect(changed.length).toBeGreaterThan(80);
    const read = await readAll(mercadolibreConnector({ sleep: clock.sleep, paging: { maxOffset: 50, limit: 25 } }).fetchOrders(connection, { updatedSince }));
    expect(ids(read.orders)).toEqual(changed);
    expect(searches().length).toBeGreaterThan(2);
    expect(searches().every((r) => r.query['order.last_updated.from'] === updatedSince.replace('Z', '-00:00'))).toBe(true);
    expect(searches().some((r) => r.query['order.date_created.from'])).toBe(true);
  });

  it('narrows the date window when the offset cap is reached, reading each order once', async () => {
    const orders = mercadolibreOrders(130, 5);
    // Six orders created in the same instant straddle the cap (offset 100).
    for (const o of orders.slice(96, 102)) o.date_created = orders[96].date_created;
    fake.setOrders(orders);
    const read = await readAll(mercadolibreConnector({ sleep: clock.sleep, paging: { maxOffset: 100 } }).fetchOrders(connection, {}));
    expect(ids(read.orders)).toEqual(fake.orders.map((o) => String(o.id)));
    expect(searches().map((r) => [r.query.offset, r.query['order.date_created.from'] ?? null])).toEqual([
      ['0', null],
      ['50', null],
      ['0', new Date(Date.parse(orders[96].date_created)).toISOString().replace('Z', '-00:00')],
    ]);
  });

  it('waits what a 429 Retry-After asks and still reads everything', async () => {
    fake.rateLimitOn(2, 3, '/orders/search');
    fake.rateLimitOn(5, 1, '/shipments/');
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(new Set(ids(orders)).size).toBe(60);
    expect(clock.waits.sort()).toEqual([1000, 3000]);
  });

  it('retries a 500 and reads everything', async () => {
    fake.failOn(1, '/orders/search');
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders).toHaveLength(60);
    expect(searches().map((r) => r.status)).toEqual([500, 200, 200]);
  });

  it('reports malformed records as rejected and keeps the rest', async () => {
    fake.malform(0, 'missing-id');
    const badAmount = fake.malform(55, 'bad-amount');
    const { orders, rejected } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders).toHaveLength(58);
    expect(rejected).toEqual([
      { channelOrderId: null, reason: 'id is missing' },
      { channelOrderId: badAmount, reason: 'total_amount is not an amount: "mil pesos"' },
    ]);
  });

  it('refuses bad credentials with a clear error', async () => {
    const err = await readAll(connector().fetchOrders({ ...connection, credentials: { ...connection.credentials, accessToken: 'APP_USR-wrong' } }, {})).catch((e) => e);
    expect(err).toBeInstanceOf(MarketplaceError);
    expect(err).toMatchObject({ channel: 'meli', code: 'unauthorized', status: 401 });
    expect(err.message).toMatch(/^meli: the credentials were refused \(401\): .*invalid access token/);
  });

  it("refuses another seller's orders with a clear error", async () => {
    const err = await readAll(connector().fetchOrders({ ...connection, credentials: { ...connection.credentials, sellerId: '999' } }, {})).catch((e) => e);
    expect(err).toMatchObject({ code: 'unauthorized', status: 403, message: expect.stringMatching(/caller.id does not match seller/) });
  });

  it('maps an order and its shipment field by field', async () => {
    fake.setOrders([anOrder()]);
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders).toEqual([
      {
        channelOrderId: '2000008123456789',
        orderNumber: '2000008123456789',
        createdAt: '2025-03-02T13:00:00.000Z',
        updatedAt: '2025-03-02T14:15:00.000Z',
        status: 'processing',
        financialStatus: 'paid',
        customer: { name: 'Ana Pérez', email: 'aperez.x1@mail.mercadolibre.com', phone: '11 5555-1234' },
        shippingAddress: {
          name: 'Ana Pérez',
          address1: 'Av. Corrientes 1234',
          address2: 'Piso 3 Dto B',
          city: 'Buenos Aires',
          state: 'Capital Federal',
          postal_code: '1043',
          country: 'AR',
          phone: '11 5555-1234',
        },
        billingAddress: null,
        items: [
          { channelItemId: 'MLA1400000001-174000000001', sku: 'MUG-01', name: 'Taza cerámica', quantity: 2, price: 12500.5, weight: null },
          { channelItemId: 'MLA1400000002', sku: 'MLA1400000002', name: 'Funda de teléfono', quantity: 1, price: 4999, weight: null },
        ],
        currency: 'ARS',
        totals: { subtotal: 30000, shipping: 3500, tax: 0, discount: 0, total: 33500 },
      },
    ]);
  });

  it('keeps an order whose shipment is missing, with every address field empty', async () => {
    fake.setOrders([anOrder(), anOrder({ id: 2000008123456790, shipping: { id: null }, shipment: undefined })]);
    fake.dropShipment('2000008123456789');
    const { orders, rejected } = await readAll(connector().fetchOrders(connection, {}));
    expect(rejected).toEqual([]);
    for (const o of orders) {
      expect(o.shippingAddress).toEqual({ name: '', address1: '', address2: null, city: '', state: '', postal_code: '', country: '', phone: null });
      expect(o.totals.shipping).toBe(0);
    }
    expect(fake.requests.filter((r) => r.path.startsWith('/shipments/')).map((r) => r.status)).toEqual([404]);
  });

  it('maps statuses as documented', async () => {
    const rows: [string, string][] = [
      ['paid', 'processing'],
      ['partially_refunded', 'processing'],
      ['cancelled', 'cancelled'],
      ['pending_cancel', 'cancelled'],
      ['invalid', 'cancelled'],
      ['confirmed', 'pending'],
      ['payment_required', 'pending'],
      ['payment_in_process', 'pending'],
      ['partially_paid', 'pending'],
    ];
    fake.setOrders(rows.map(([status], i) => anOrder({ id: 100 + i, status, date_created: `2025-03-0${i + 1}T00:00:00.000-03:00`, shipping: { id: null } })));
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders.map((o) => [o.financialStatus, o.status])).toEqual(rows);
  });

  it('sees an update on the next sync', async () => {
    const first = await readAll(connector().fetchOrders(connection, {}));
    const target = first.orders.find((o) => o.status === 'pending')!;
    fake.mutate(target.channelOrderId, (o) => {
      o.status = 'cancelled';
    });
    const second = await readAll(connector().fetchOrders(connection, {}));
    const updated = second.orders.find((o) => o.channelOrderId === target.channelOrderId)!;
    expect(updated.status).toBe('cancelled');
    expect(updated.updatedAt > target.updatedAt).toBe(true);
  });
});
