import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MarketplaceConnection } from '#core/orders/marketplace';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { amazonConnector } from '#infra/marketplaces/amazon';
import { MarketplaceError } from '#infra/marketplaces/http';
import { amazonOrders, firstOrderAt, readAll, recordedSleep, startFakeAmazon, type FakeAmazon, type Raw } from '#twin/fake-marketplaces';

let fake: FakeAmazon;
let connection: MarketplaceConnection;
let clock: ReturnType<typeof recordedSleep>;
const connector = () => amazonConnector({ sleep: clock.sleep });
/** Before the first generated order: every order is read. */
const since = '2025-02-01T00:00:00.000Z';

beforeAll(async () => {
  fake = await startFakeAmazon({ ordersPerPage: 20, itemsPerPage: 2 });
  connection = { channel: 'amazon', baseUrl: fake.baseUrl, credentials: { accessToken: fake.token, marketplaceId: fake.marketplaceId } };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.setOrders(amazonOrders(45, 11));
  fake.requests.length = 0;
  clock = recordedSleep();
});
afterEach(() => useSystemClock());

const ids = (orders: { channelOrderId: string }[]) => orders.map((o) => o.channelOrderId);
const listings = () => fake.requests.filter((r) => r.path === '/orders/v0/orders');
const money = (Amount: string) => ({ CurrencyCode: 'USD', Amount });

function anOrder(overrides: Raw = {}): Raw {
  return {
    AmazonOrderId: '114-3941689-8772232',
    PurchaseDate: '2025-03-02T13:00:00Z',
    LastUpdateDate: '2025-03-02T14:15:00Z',
    OrderStatus: 'Unshipped',
    OrderTotal: money('71.46'),
    MarketplaceId: 'ATVPDKIKX0DER',
    ShippingAddress: {
      Name: 'Ana Pérez',
      AddressLine1: 'Av. Corrientes 1234',
      AddressLine2: 'Piso 3',
      City: 'Buenos Aires',
      StateOrRegion: 'Buenos Aires',
      PostalCode: 'C1043AAZ',
      CountryCode: 'AR',
      Phone: '+54 11 5555-1234',
    },
    BuyerInfo: { BuyerEmail: 'x1y2z3@marketplace.amazon.com', BuyerName: 'Ana Pérez' },
    OrderItems: [
      {
        OrderItemId: '68828574383266',
        SellerSKU: 'MUG-01',
        Title: 'Taza cerámica',
        QuantityOrdered: 3,
        ItemPrice: money('59.97'),
        ShippingPrice: money('4.99'),
        ItemTax: money('5.40'),
        PromotionDiscount: money('1.00'),
      },
      { OrderItemId: '68828574383267', SellerSKU: 'CASE-X', Title: 'Funda', QuantityOrdered: 1, ItemPrice: money('10.00'), ShippingPrice: money('0.00') },
      { OrderItemId: '68828574383268', SellerSKU: 'BOOK-ES', Title: 'Libro', QuantityOrdered: 0, ItemPrice: money('0.00') },
    ],
    ...overrides,
  };
}

describe('the Amazon connector', () => {
  it('reads every order across pages exactly once, with every page of its items', async () => {
    const { pages, orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(ids(orders)).toEqual(fake.orders.map((o) => o.AmazonOrderId));
    expect(pages.map((p) => p.orders.length)).toEqual([20, 20, 5]);
    expect(orders.map((o) => o.items.length)).toEqual(fake.orders.map((o) => o.OrderItems.length));
    expect(listings().map((r) => Object.keys(r.query).sort())).toEqual([
      ['CreatedAfter', 'MarketplaceIds', 'MaxResultsPerPage'],
      ['MarketplaceIds', 'NextToken'],
      ['MarketplaceIds', 'NextToken'],
    ]);
    const itemPages = fake.orders.reduce((n, o) => n + Math.ceil(o.OrderItems.length / 2), 0);
    expect(fake.requests.filter((r) => r.path.endsWith('/orderItems'))).toHaveLength(itemPages);
  });

  it('reads only orders created after since', async () => {
    const after = fake.orders[30].PurchaseDate;
    const { orders } = await readAll(connector().fetchOrders(connection, { since: after }));
    expect(ids(orders)).toEqual(fake.orders.slice(30).map((o) => o.AmazonOrderId));
    expect(listings()[0].query.CreatedAfter).toBe(after);
  });

  it('reads only orders updated after updatedSince', async () => {
    const updatedSince = new Date(Date.now() - 1000).toISOString();
    const old = fake.orders[2].AmazonOrderId;
    fake.mutate(old, (o) => {
      o.OrderStatus = 'Canceled';
    });
    const { orders } = await readAll(connector().fetchOrders(connection, { updatedSince }));
    expect(ids(orders)).toEqual([old]);
    expect(orders[0].status).toBe('cancelled');
    // SP-API takes exactly one of them; the two-minute rule moves it back.
    expect(listings()[0].query.CreatedAfter).toBeUndefined();
    expect(Date.parse(listings()[0].query.LastUpdatedAfter)).toBeLessThanOrEqual(Date.parse(updatedSince));
  });

  it('reads the last 30 days when there is no since', async () => {
    useClock(manualClock(new Date(firstOrderAt + 40 * 86_400_000)));
    const { orders } = await readAll(connector().fetchOrders(connection, {}));
    expect(listings()[0].query.CreatedAfter).toBe(new Date(firstOrderAt + 10 * 86_400_000).toISOString());
    expect(ids(orders)).toEqual(fake.orders.filter((o) => Date.parse(o.PurchaseDate) >= firstOrderAt + 10 * 86_400_000).map((o) => o.AmazonOrderId));
  });

  it('never asks for orders created in the last two minutes', async () => {
    const at = new Date('2025-03-10T12:00:00.000Z');
    useClock(manualClock(at));
    await readAll(connector().fetchOrders(connection, { since: '2025-03-10T11:59:30.000Z' }));
    expect(listings()[0].query.CreatedAfter).toBe('2025-03-10T11:58:00.000Z');
  });

  it('backs off after a 429 without Retry-After and still reads everything', async () => {
    fake.rateLimitOn(2, null, '/orders/v0/orders');
    fake.rateLimitOn(2, null, '/orders/v0/orders/');
    const { orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(new Set(ids(orders)).size).toBe(45);
    expect(listings().map((r) => r.status)).toEqual([200, 429, 200, 200]);
    expect(fake.requests.filter((r) => r.status === 429)).toHaveLength(2);
    // Amazon's backoff starts at 2 s: half of it for sure, the other half at random.
    expect(clock.waits).toHaveLength(2);
    for (const wait of clock.waits) {
      expect(wait).toBeGreaterThanOrEqual(1000);
      expect(wait).toBeLessThanOrEqual(2000);
    }
  });

  it('retries a 500 and reads everything', async () => {
    fake.failOn(2);
    const { orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(orders).toHaveLength(45);
    expect(fake.requests[1].status).toBe(500);
  });

  it('reports malformed records as rejected and keeps the rest', async () => {
    fake.malform(2, 'missing-id');
    const badAmount = fake.malform(40, 'bad-amount');
    const { orders, rejected } = await readAll(connector().fetchOrders(connection, { since }));
    expect(orders).toHaveLength(43);
    expect(rejected).toEqual([
      { channelOrderId: null, reason: 'AmazonOrderId is missing' },
      { channelOrderId: badAmount, reason: 'OrderTotal.Amount is not an amount: "N/A"' },
    ]);
  });

  it('rejects an order whose line has a non-numeric price, keeping the others', async () => {
    const broken = anOrder({ AmazonOrderId: '114-0000000-0000001', PurchaseDate: '2025-03-01T00:00:00Z' });
    broken.OrderItems[1].ItemPrice = money('ten');
    fake.setOrders([broken, anOrder()]);
    const { orders, rejected } = await readAll(connector().fetchOrders(connection, { since }));
    expect(ids(orders)).toEqual(['114-3941689-8772232']);
    expect(rejected).toEqual([{ channelOrderId: '114-0000000-0000001', reason: 'OrderItems[1].ItemPrice.Amount is not an amount: "ten"' }]);
  });

  it('refuses bad credentials with a clear error', async () => {
    const err = await readAll(connector().fetchOrders({ ...connection, credentials: { ...connection.credentials, accessToken: 'Atza|wrong' } }, { since })).catch((e) => e);
    expect(err).toBeInstanceOf(MarketplaceError);
    expect(err).toMatchObject({ channel: 'amazon', code: 'unauthorized', status: 403 });
    expect(err.message).toMatch(/^amazon: the credentials were refused \(403\): .*revoked, malformed or invalid/);
  });

  it('maps an order and its items field by field', async () => {
    fake.setOrders([anOrder()]);
    const { orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(orders).toEqual([
      {
        channelOrderId: '114-3941689-8772232',
        orderNumber: '114-3941689-8772232',
        createdAt: '2025-03-02T13:00:00.000Z',
        updatedAt: '2025-03-02T14:15:00.000Z',
        status: 'processing',
        financialStatus: 'paid',
        customer: { name: 'Ana Pérez', email: 'x1y2z3@marketplace.amazon.com', phone: '+54 11 5555-1234' },
        shippingAddress: {
          name: 'Ana Pérez',
          address1: 'Av. Corrientes 1234',
          address2: 'Piso 3',
          city: 'Buenos Aires',
          state: 'Buenos Aires',
          postal_code: 'C1043AAZ',
          country: 'AR',
          phone: '+54 11 5555-1234',
        },
        billingAddress: null,
        items: [
          { channelItemId: '68828574383266', sku: 'MUG-01', name: 'Taza cerámica', quantity: 3, price: 19.99, weight: null },
          { channelItemId: '68828574383267', sku: 'CASE-X', name: 'Funda', quantity: 1, price: 10, weight: null },
          { channelItemId: '68828574383268', sku: 'BOOK-ES', name: 'Libro', quantity: 0, price: 0, weight: null },
        ],
        currency: 'USD',
        totals: { subtotal: 69.97, shipping: 4.99, tax: 5.4, discount: 1, total: 71.46 },
      },
    ]);
  });

  it('adds up the lines when a pending order has no OrderTotal yet', async () => {
    fake.setOrders([anOrder({ OrderStatus: 'Pending', OrderTotal: undefined })]);
    const { orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(orders[0].totals.total).toBe(79.36);
    expect(orders[0].currency).toBe('USD');
  });

  it('maps statuses as documented', async () => {
    const rows: [string, string, string | null][] = [
      ['Pending', 'pending', 'pending'],
      ['PendingAvailability', 'pending', 'pending'],
      ['Unshipped', 'processing', 'paid'],
      ['PartiallyShipped', 'processing', 'paid'],
      ['Shipped', 'shipped', 'paid'],
      ['InvoiceUnconfirmed', 'shipped', 'paid'],
      ['Canceled', 'cancelled', null],
      ['Unfulfillable', 'cancelled', null],
    ];
    fake.setOrders(rows.map(([OrderStatus], i) => anOrder({ AmazonOrderId: `114-0000000-000000${i}`, OrderStatus, PurchaseDate: `2025-03-0${i + 1}T00:00:00Z` })));
    const { orders } = await readAll(connector().fetchOrders(connection, { since }));
    expect(orders.map((o) => [o.status, o.financialStatus])).toEqual(rows.map(([, status, financial]) => [status, financial]));
  });

  it('sees an update on the next sync', async () => {
    const first = await readAll(connector().fetchOrders(connection, { since }));
    const target = first.orders.find((o) => o.status !== 'shipped')!;
    fake.mutate(target.channelOrderId, (o) => {
      o.OrderStatus = 'Shipped';
    });
    const second = await readAll(connector().fetchOrders(connection, { since }));
    const updated = second.orders.find((o) => o.channelOrderId === target.channelOrderId)!;
    expect(updated.status).toBe('shipped');
    expect(updated.updatedAt > target.updatedAt).toBe(true);
  });
});
