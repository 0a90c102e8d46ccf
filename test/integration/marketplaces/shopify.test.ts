import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MarketplaceConnection } from '#core/orders/marketplace';
import { MarketplaceError } from '#infra/marketplaces/http';
import { shopifyConnector, shopifyPageSizes } from '#infra/marketplaces/shopify';
import { readAll, recordedSleep, shopifyOrders, shopifyQueryCost, startFakeShopify, type FakeShopify, type Raw } from '#twin/fake-marketplaces';

let fake: FakeShopify;
let connection: MarketplaceConnection;
let clock: ReturnType<typeof recordedSleep>;
const connector = () => shopifyConnector({ sleep: clock.sleep });

beforeAll(async () => {
  fake = await startFakeShopify();
  connection = { channel: 'shopify', baseUrl: fake.baseUrl, credentials: { accessToken: fake.token } };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.setOrders(shopifyOrders(45, 7));
  fake.requests.length = 0;
  clock = recordedSleep();
});

const ids = (orders: { channelOrderId: string }[]) => orders.map((o) => o.channelOrderId);
const gidNumber = (o: Raw) => String(o.id).split('/').pop();

const money = (amount: string) => ({ shopMoney: { amount, currencyCode: 'USD' } });

/** One order as Shopify's API returns it, every field set. */
function anOrder(overrides: Raw = {}): Raw {
  return {
    id: 'gid://shopify/Order/820982911946154508',
    name: '#1001',
    createdAt: '2025-03-02T10:00:00-03:00',
    updatedAt: '2025-03-02T14:30:00Z',
    cancelledAt: null,
    displayFinancialStatus: 'PAID',
    displayFulfillmentStatus: 'UNFULFILLED',
    email: 'ana@example.com',
    phone: null,
    customer: { firstName: 'Ana', lastName: 'Pérez', email: 'ana.customer@example.com', phone: '+54 9 11 5555-0000' },
    shippingAddress: {
      name: 'Ana Pérez',
      address1: 'Av. Corrientes 1234',
      address2: 'Piso 3',
      city: 'Buenos Aires',
      province: 'Ciudad Autónoma de Buenos Aires',
      provinceCode: 'C',
      zip: 'C1043AAZ',
      countryCodeV2: 'AR',
      phone: '+54 11 5555-1234',
    },
    billingAddress: null,
    currencyCode: 'USD',
    subtotalPriceSet: money('79.96'),
    totalShippingPriceSet: money('15.00'),
    totalTaxSet: money('16.79'),
    totalDiscountsSet: money('5.00'),
    totalPriceSet: money('106.75'),
    lineItems: {
      nodes: [
        {
          id: 'gid://shopify/LineItem/866550311766439020',
          sku: 'MUG-01',
          name: 'Taza cerámica',
          quantity: 3,
          originalUnitPriceSet: { shopMoney: { amount: '19.99' } },
          variant: { inventoryItem: { measurement: { weight: { unit: 'POUNDS', value: 1 } } } },
        },
        { id: 'gid://shopify/LineItem/866550311766439021', sku: null, name: 'Tarjeta de regalo', quantity: 1, originalUnitPriceSet: { shopMoney: { amount: '19.99' } }, variant: null },
      ],
    },
    ...overrides,
  };
}

describe('the Shopify connector', () => {
  it('reads every order across pages exactly once, oldest first', async () => {
    const { pages, orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(ids(orders)).toEqual(fake.orders.map(gidNumber));
    expect(new Set(ids(orders)).size).toBe(45);
    expect(pages.map((p) => p.orders.length)).toEqual([10, 10, 10, 10, 5]);
    expect(fake.requests.map((r) => (r.body as Raw).variables.after === null)).toEqual([true, false, false, false, false]);
  });

  it('reads only orders created after since', async () => {
    const since = fake.orders[19].createdAt;
    const { orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(ids(orders)).toEqual(fake.orders.slice(20).map(gidNumber));
    expect((fake.requests[0].body as Raw).variables.query).toBe(`created_at:>'${since}'`);
  });

  it('reads only orders updated after updatedSince', async () => {
    const updatedSince = new Date(Date.now() - 1000).toISOString();
    const old = gidNumber(fake.orders[2])!;
    fake.mutate(old, (o) => {
      o.cancelledAt = new Date().toISOString();
    });
    const { orders } = await readAll(connector().fetchOrders(connection, { updatedSince }));
    expect(ids(orders)).toEqual([old]);
    expect(orders[0].status).toBe('cancelled');
    const variables = (fake.requests[0].body as Raw).variables;
    expect(variables.query).toBe(`updated_at:>'${updatedSince}'`);
    expect(variables.sortKey).toBe('UPDATED_AT');
  });

  it('waits what a 429 Retry-After asks and still reads everything', async () => {
    fake.rateLimitOn(2, 1);
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(new Set(ids(orders)).size).toBe(45);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 429, 200, 200, 200, 200]);
    expect(clock.waits).toEqual([1000]);
  });

  it('treats a THROTTLED answer in a 200 body as a rate limit, waiting for the bucket to refill', async () => {
    fake.throttleOn(3);
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders).toHaveLength(45);
    expect(fake.requests).toHaveLength(6);
    expect(clock.waits).toEqual([2000]);
  });

  it('retries a 500 and reads everything', async () => {
    fake.failOn(1);
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders).toHaveLength(45);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 200, 200, 200, 200, 200]);
  });

  it('reports malformed records as rejected and keeps the rest', async () => {
    fake.malform(3, 'missing-id');
    const badAmount = fake.malform(12, 'bad-amount');
    const { orders, rejected } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders).toHaveLength(43);
    expect(rejected).toEqual([
      { channelOrderId: null, reason: 'id is not an order gid: missing' },
      { channelOrderId: badAmount, reason: 'totalPriceSet is not an amount: "twelve dollars"' },
    ]);
  });

  it('refuses bad credentials with a clear error', async () => {
    const err = await readAll(connector().fetchOrders({ ...connection, credentials: { accessToken: 'shpat_wrong' } }, {})).catch((e) => e);
    expect(err).toBeInstanceOf(MarketplaceError);
    expect(err).toMatchObject({ channel: 'shopify', code: 'unauthorized', status: 401 });
    expect(err.message).toMatch(/^shopify: the credentials were refused \(401\): .*Invalid API key or access token/);
  });

  it('asks nothing of Shopify when the connection has no access token', async () => {
    const err = await readAll(connector().fetchOrders({ ...connection, credentials: {} }, {})).catch((e) => e);
    expect(err).toMatchObject({ code: 'unauthorized', message: 'shopify: the connection has no accessToken' });
    expect(fake.requests).toHaveLength(0);
  });

  it('maps an order field by field', async () => {
    fake.setOrders([anOrder()]);
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders).toEqual([
      {
        channelOrderId: '820982911946154508',
        orderNumber: '#1001',
        createdAt: '2025-03-02T13:00:00.000Z',
        updatedAt: '2025-03-02T14:30:00.000Z',
        status: 'processing',
        financialStatus: 'paid',
        customer: { name: 'Ana Pérez', email: 'ana@example.com', phone: '+54 9 11 5555-0000' },
        shippingAddress: {
          name: 'Ana Pérez',
          address1: 'Av. Corrientes 1234',
          address2: 'Piso 3',
          city: 'Buenos Aires',
          state: 'Ciudad Autónoma de Buenos Aires',
          postal_code: 'C1043AAZ',
          country: 'AR',
          phone: '+54 11 5555-1234',
        },
        billingAddress: null,
        items: [
          { channelItemId: '866550311766439020', sku: 'MUG-01', name: 'Taza cerámica', quantity: 3, price: 19.99, weight: 0.453592 },
          { channelItemId: '866550311766439021', sku: '', name: 'Tarjeta de regalo', quantity: 1, price: 19.99, weight: null },
        ],
        currency: 'USD',
        totals: { subtotal: 79.96, shipping: 15, tax: 16.79, discount: 5, total: 106.75 },
      },
    ]);
  });

  it('keeps an order without a shipping address, with every address field empty', async () => {
    fake.setOrders([anOrder({ shippingAddress: null, customer: null })]);
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders[0].shippingAddress).toEqual({ name: '', address1: '', address2: null, city: '', state: '', postal_code: '', country: '', phone: null });
    expect(orders[0].customer).toEqual({ name: '', email: 'ana@example.com', phone: null });
  });

  it('maps statuses as documented', async () => {
    const rows: [Raw, string][] = [
      [{ cancelledAt: '2025-03-03T00:00:00Z', displayFulfillmentStatus: 'FULFILLED' }, 'cancelled'],
      [{ displayFulfillmentStatus: 'FULFILLED', displayFinancialStatus: 'PENDING' }, 'shipped'],
      [{ displayFulfillmentStatus: 'PARTIALLY_FULFILLED', displayFinancialStatus: 'PENDING' }, 'processing'],
      [{ displayFulfillmentStatus: 'UNFULFILLED', displayFinancialStatus: 'PAID' }, 'processing'],
      [{ displayFulfillmentStatus: 'UNFULFILLED', displayFinancialStatus: 'PARTIALLY_REFUNDED' }, 'processing'],
      [{ displayFulfillmentStatus: 'UNFULFILLED', displayFinancialStatus: 'AUTHORIZED' }, 'pending'],
      [{ displayFulfillmentStatus: 'UNFULFILLED', displayFinancialStatus: 'PENDING' }, 'pending'],
      [{ displayFulfillmentStatus: 'ON_HOLD', displayFinancialStatus: 'REFUNDED' }, 'pending'],
    ];
    fake.setOrders(rows.map(([fields], i) => anOrder({ ...fields, id: `gid://shopify/Order/${i + 1}`, createdAt: `2025-03-0${i + 1}T00:00:00Z` })));
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(orders.map((o) => o.status)).toEqual(rows.map(([, status]) => status));
  });

  it('reads every line of an order with more lines than a page holds', async () => {
    const line = (n: number) => ({ ...anOrder().lineItems.nodes[0], id: `gid://shopify/LineItem/${n}`, sku: `SKU-${n}` });
    fake.setOrders([anOrder({ lineItems: { nodes: Array.from({ length: 25 }, (_, i) => line(i + 1)) } })]);
    const { orders } = await readAll(shopifyConnector({ sleep: clock.sleep, pageSizes: { moreLineItems: 7 } }).fetchOrders(connection, {}));
    expect(orders[0].items.map((i) => i.sku)).toEqual(Array.from({ length: 25 }, (_, i) => `SKU-${i + 1}`));
    expect(fake.requests).toHaveLength(1 + 3);
  });

  it('sees an update on the next sync', async () => {
    const first = await readAll(connector().fetchOrders(connection, {}));
    const target = first.orders[4];
    fake.mutate(target.channelOrderId, (o) => {
      o.displayFulfillmentStatus = 'FULFILLED';
      o.cancelledAt = null;
    });
    const second = await readAll(connector().fetchOrders(connection, {}));
    const updated = second.orders.find((o) => o.channelOrderId === target.channelOrderId)!;
    expect(updated.status).toBe('shipped');
    expect(updated.updatedAt > target.updatedAt).toBe(true);
  });

  it("asks for pages Shopify's single-query cost limit allows", async () => {
    expect(shopifyQueryCost(shopifyPageSizes.orders, shopifyPageSizes.lineItemsPerOrder)).toBeLessThanOrEqual(1000);
    const greedy = shopifyConnector({ sleep: clock.sleep, pageSizes: { orders: 100, lineItemsPerOrder: 250 } });
    const err = await readAll(greedy.fetchOrders(connection, {})).catch((e) => e);
    expect(err).toMatchObject({ code: 'rejected', message: expect.stringMatching(/exceeds the single query max cost limit/) });
  });
});
