import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { MarketplacePage } from '#core/orders/marketplace';
import { prng } from './prng';

/**
 * Local stand-ins for the three marketplaces' public APIs, on real node:http servers (port 0),
 * speaking the shapes the connectors are written against: Shopify's Admin GraphQL `orders` with
 * cursors, Mercado Libre's `/orders/search` with offsets and `/shipments/{id}`, Amazon SP-API's
 * `getOrders` and `getOrderItems` with NextToken. Each checks its auth header the way the
 * marketplace does, honors the creation and last-update filters and paging, and takes switches
 * to misbehave: a 429 (with or without Retry-After) or a 500 on the k-th request, a malformed
 * record, an update.
 *
 * Orders are raw marketplace JSON. A few fake-only fields carry what the marketplace serves from
 * another endpoint: Shopify's full `lineItems.nodes` (sliced per request), ML's `shipment`
 * (served at /shipments/{shipping.id}, stripped from the search), Amazon's `OrderItems` (served by
 * getOrderItems, stripped from getOrders).
 */

export type Raw = Record<string, any>;

export interface LoggedRequest {
  n: number;
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

interface Fault {
  nth: number;
  path?: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface FakeMarketplace {
  baseUrl: string;
  /** The token the fake accepts. */
  token: string;
  requests: LoggedRequest[];
  /** The orders as stored, oldest first. */
  readonly orders: Raw[];
  setOrders(orders: Raw[]): void;
  /** Changes an order (by its marketplace id) and moves its last-update time to now. */
  mutate(orderId: string, change: (order: Raw) => void): void;
  /** Breaks the index-th order (oldest first); answers its id (null once the id is gone). */
  malform(index: number, kind: 'missing-id' | 'bad-amount'): string | null;
  /**
   * The nth request (1-based; counting only requests to `path` when given: that path exactly, or
   * every path under it when it ends with '/') answers 429, with `Retry-After: <retryAfterSeconds>`
   * unless that is null.
   */
  rateLimitOn(nth: number, retryAfterSeconds: number | null, path?: string): void;
  /** The nth request (as above) answers `status` (500) once. */
  failOn(nth: number, path?: string, status?: number): void;
  close(): Promise<void>;
}

export interface FakeOptions {
  /** Generated orders (deterministic from `seed`); or pass `orders`. */
  count?: number;
  seed?: number;
  orders?: Raw[];
  token?: string;
}

// ---------------------------------------------------------------------------------------------
// Generated orders

const firstNames = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elena', 'Facundo', 'Gabriela', 'Hernán'];
const lastNames = ['Pérez', 'Gómez', 'Fernández', 'López', 'Díaz', 'Martínez'];
const places = [
  { city: 'Buenos Aires', province: 'Ciudad Autónoma de Buenos Aires', code: 'C', zip: 'C1043AAZ' },
  { city: 'Córdoba', province: 'Córdoba', code: 'X', zip: 'X5000' },
  { city: 'Rosario', province: 'Santa Fe', code: 'S', zip: 'S2000' },
];
const products = [
  { sku: 'TSHIRT-M', name: 'Remera algodón M', grams: 180 },
  { sku: 'MUG-01', name: 'Taza cerámica', grams: 350 },
  { sku: 'BOOK-ES', name: 'Libro de cocina', grams: 900 },
  { sku: 'CASE-X', name: 'Funda de teléfono', grams: 60 },
];

/** The first generated order's creation; each next one comes 1 h later, give or take. */
export const firstOrderAt = Date.parse('2025-03-01T00:00:00.000Z');

interface Seed {
  i: number;
  createdAt: number;
  first: string;
  last: string;
  place: (typeof places)[number];
  lines: { sku: string; name: string; grams: number; quantity: number; cents: number }[];
  pick: <T>(xs: readonly T[]) => T;
}

function seeds(count: number, seed: number): Seed[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  return Array.from({ length: count }, (_, i) => ({
    i,
    createdAt: firstOrderAt + i * 3_600_000 + Math.floor(rand() * 3_000_000),
    first: pick(firstNames),
    last: pick(lastNames),
    place: pick(places),
    lines: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
      ...pick(products),
      quantity: 1 + Math.floor(rand() * 3),
      cents: 500 + Math.floor(rand() * 49_500),
    })),
    pick,
  }));
}

const decimal = (cents: number) => (cents / 100).toFixed(2);
const iso = (ms: number) => new Date(ms).toISOString();
/** Mercado Libre writes its dates in Argentina's offset. */
const mlDate = (ms: number) => new Date(ms - 3 * 3_600_000).toISOString().replace('Z', '-03:00');

const shopMoney = (cents: number, currencyCode = 'USD') => ({ shopMoney: { amount: decimal(cents), currencyCode } });

export function shopifyOrders(count: number, seed = 1): Raw[] {
  return seeds(count, seed).map((s) => {
    const subtotal = s.lines.reduce((a, l) => a + l.cents * l.quantity, 0);
    const tax = Math.round(subtotal * 0.21);
    const address = {
      name: `${s.first} ${s.last}`,
      address1: `Av. Corrientes ${1000 + s.i}`,
      address2: s.i % 2 ? `Piso ${s.i % 9}` : null,
      city: s.place.city,
      province: s.place.province,
      provinceCode: s.place.code,
      zip: s.place.zip,
      countryCodeV2: 'AR',
      phone: `+54 11 5555-${String(1000 + s.i).slice(-4)}`,
    };
    return {
      id: `gid://shopify/Order/${5000 + s.i}`,
      name: `#${1001 + s.i}`,
      createdAt: iso(s.createdAt),
      updatedAt: iso(s.createdAt + 60_000),
      cancelledAt: null,
      displayFinancialStatus: s.pick(['PAID', 'PENDING', 'AUTHORIZED', 'PARTIALLY_REFUNDED']),
      displayFulfillmentStatus: s.pick(['UNFULFILLED', 'FULFILLED', 'PARTIALLY_FULFILLED']),
      email: `${s.first.toLowerCase()}.${s.i}@example.com`,
      phone: null,
      customer: { firstName: s.first, lastName: s.last, email: `${s.first.toLowerCase()}.${s.i}@example.com`, phone: null },
      shippingAddress: address,
      billingAddress: address,
      currencyCode: 'USD',
      subtotalPriceSet: shopMoney(subtotal),
      totalShippingPriceSet: shopMoney(1500),
      totalTaxSet: shopMoney(tax),
      totalDiscountsSet: shopMoney(0),
      totalPriceSet: shopMoney(subtotal + 1500 + tax),
      lineItems: {
        nodes: s.lines.map((l, j) => ({
          id: `gid://shopify/LineItem/${90000 + s.i * 10 + j}`,
          sku: l.sku,
          name: l.name,
          quantity: l.quantity,
          originalUnitPriceSet: { shopMoney: { amount: decimal(l.cents) } },
          variant: { inventoryItem: { measurement: { weight: { unit: 'GRAMS', value: l.grams } } } },
        })),
      },
    };
  });
}

const mlStatuses = ['paid', 'paid', 'confirmed', 'payment_required', 'payment_in_process', 'partially_paid', 'partially_refunded', 'cancelled'];

export function mercadolibreOrders(count: number, seed = 1): Raw[] {
  return seeds(count, seed).map((s) => {
    const total = s.lines.reduce((a, l) => a + l.cents * l.quantity, 0);
    // Every seventh order has no shipment yet.
    const shipmentId = s.i % 7 === 6 ? null : 40_000_000_000 + s.i;
    return {
      id: 2_000_000_000 + s.i,
      date_created: mlDate(s.createdAt),
      last_updated: mlDate(s.createdAt + 60_000),
      status: s.pick(mlStatuses),
      order_items: s.lines.map((l, j) => ({
        item: { id: `MLA${800000 + s.i * 10 + j}`, title: l.name, seller_sku: l.sku, variation_id: null },
        quantity: l.quantity,
        unit_price: l.cents / 100,
        currency_id: 'ARS',
      })),
      total_amount: total / 100,
      paid_amount: (total + 2500) / 100,
      currency_id: 'ARS',
      buyer: { id: 300_000 + s.i, nickname: `${s.first.toUpperCase()}${s.i}`, first_name: s.first, last_name: s.last },
      shipping: { id: shipmentId },
      tags: ['paid'],
      shipment: shipmentId && {
        id: shipmentId,
        status: 'ready_to_ship',
        receiver_address: {
          street_name: 'Av. Corrientes',
          street_number: String(1000 + s.i),
          comment: s.i % 2 ? `Piso ${s.i % 9}` : null,
          city: { name: s.place.city },
          state: { name: s.place.province },
          zip_code: s.place.zip,
          country: { id: 'AR' },
          receiver_name: `${s.first} ${s.last}`,
          receiver_phone: `11 5555-${String(1000 + s.i).slice(-4)}`,
        },
        shipping_option: { cost: 25 },
      },
    };
  });
}

const amazonStatuses = ['Pending', 'Unshipped', 'PartiallyShipped', 'Shipped', 'Canceled', 'Unfulfillable', 'InvoiceUnconfirmed', 'PendingAvailability'];
const amazonMoney = (cents: number) => ({ CurrencyCode: 'USD', Amount: decimal(cents) });

export function amazonOrders(count: number, seed = 1): Raw[] {
  return seeds(count, seed).map((s) => {
    const items = s.lines.map((l, j) => ({
      OrderItemId: `${10_000_000_000_000 + s.i * 10 + j}`,
      SellerSKU: l.sku,
      Title: l.name,
      QuantityOrdered: l.quantity,
      ItemPrice: amazonMoney(l.cents * l.quantity),
      ShippingPrice: amazonMoney(j === 0 ? 499 : 0),
      ItemTax: amazonMoney(0),
      PromotionDiscount: amazonMoney(0),
    }));
    const total = s.lines.reduce((a, l) => a + l.cents * l.quantity, 0) + 499;
    const n = String(s.i).padStart(7, '0');
    return {
      AmazonOrderId: `111-${n}-${String(7654321 - s.i).padStart(7, '0')}`,
      PurchaseDate: iso(s.createdAt),
      LastUpdateDate: iso(s.createdAt + 60_000),
      OrderStatus: s.pick(amazonStatuses),
      OrderTotal: amazonMoney(total),
      MarketplaceId: 'ATVPDKIKX0DER',
      ShippingAddress: {
        Name: `${s.first} ${s.last}`,
        AddressLine1: `Av. Corrientes ${1000 + s.i}`,
        AddressLine2: s.i % 2 ? `Piso ${s.i % 9}` : undefined,
        City: s.place.city,
        StateOrRegion: s.place.province,
        PostalCode: s.place.zip,
        CountryCode: 'AR',
        Phone: `+54 11 5555-${String(1000 + s.i).slice(-4)}`,
      },
      BuyerInfo: { BuyerEmail: `${s.first.toLowerCase()}.${s.i}@marketplace.amazon.com`, BuyerName: `${s.first} ${s.last}` },
      OrderItems: items,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The server every fake runs on

interface Parsed {
  /** This request's number, 1-based. */
  n: number;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Platform {
  /** The marketplace's id of a stored order (null when it has none). */
  idOf(order: Raw): string | null;
  createdAt(order: Raw): number;
  /** Its last update (ms). */
  updatedAt(order: Raw): number;
  touch(order: Raw, at: string): void;
  malform(order: Raw, kind: 'missing-id' | 'bad-amount'): void;
  /** The body of its 429. */
  busy: unknown;
  handle(req: Parsed, store: Store): Answer | Promise<Answer>;
}

/** Orders oldest first; each keeps the key it was stored under even when its id is broken. */
class Store {
  entries: { key: string; order: Raw }[] = [];
  constructor(private readonly platform: Platform) {}
  set(orders: Raw[]) {
    this.entries = orders
      .map((order, i) => ({ key: this.platform.idOf(order) ?? `#${i}`, order }))
      .sort((a, b) => this.platform.createdAt(a.order) - this.platform.createdAt(b.order) || a.key.localeCompare(b.key));
  }
  get(key: string) {
    return this.entries.find((e) => e.key === key);
  }
}

async function startFake(platform: Platform, opts: FakeOptions, generate: (count: number, seed: number) => Raw[]): Promise<FakeMarketplace> {
  const store = new Store(platform);
  store.set(opts.orders ?? generate(opts.count ?? 0, opts.seed ?? 1));
  const requests: LoggedRequest[] = [];
  const faults: Fault[] = [];

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = Buffer.concat(chunks).toString('utf8');
    const n = requests.length + 1;
    const parsed: Parsed = { n, method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: text ? safeJson(text) : undefined };
    const fault = faults.find((f) => on(f.path, parsed.path) && f.nth === requests.filter((r) => on(f.path, r.path)).length + 1);
    let answer: Answer;
    if (fault) {
      faults.splice(faults.indexOf(fault), 1);
      answer = fault;
    } else {
      try {
        answer = await platform.handle(parsed, store);
      } catch (err) {
        answer = { status: 500, body: { error: String(err) } };
      }
    }
    requests.push({ n, method: parsed.method, path: parsed.path, query: Object.fromEntries(url.searchParams), body: parsed.body, status: answer.status });
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: opts.token ?? 'fake-token-0001',
    requests,
    get orders() {
      return store.entries.map((e) => e.order);
    },
    setOrders: (orders) => store.set(orders),
    mutate(orderId, change) {
      const entry = store.get(orderId);
      if (!entry) throw new Error(`no order ${orderId}`);
      change(entry.order);
      platform.touch(entry.order, new Date().toISOString());
    },
    malform(index, kind) {
      const entry = store.entries[index];
      platform.malform(entry.order, kind);
      return platform.idOf(entry.order);
    },
    rateLimitOn(nth, retryAfterSeconds, path) {
      const headers: Record<string, string> = retryAfterSeconds === null ? {} : { 'retry-after': String(retryAfterSeconds) };
      faults.push({ nth, path, status: 429, headers, body: platform.busy });
    },
    failOn(nth, path, status = 500) {
      faults.push({ nth, path, status, headers: {}, body: { errors: [{ message: 'Internal error' }] } });
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A fault's path: every path when absent, a prefix when it ends with '/', else exactly that path. */
const on = (faultPath: string | undefined, path: string) => !faultPath || path === faultPath || (faultPath.endsWith('/') && path.startsWith(faultPath));

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const base64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const unbase64 = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));

/** The entries after a (createdAt, key) position, oldest first. */
function after(store: Store, platform: Platform, position: { at: number; key: string } | undefined) {
  if (!position) return store.entries;
  return store.entries.filter((e) => {
    const at = platform.createdAt(e.order);
    return at > position.at || (at === position.at && e.key.localeCompare(position.key) > 0);
  });
}

const positionOf = (platform: Platform, e: { key: string; order: Raw }) => ({ at: platform.createdAt(e.order), key: e.key });

// ---------------------------------------------------------------------------------------------
// Shopify

/** Close to Shopify's requested cost of the connector's orders query (objects 1, connections 2 + first x node). */
export function shopifyQueryCost(orders: number, lineItems: number): number {
  return 2 + orders * (16 + 2 + lineItems * 6);
}

export interface FakeShopify extends FakeMarketplace {
  /** The nth request answers 200 with a THROTTLED error, as Shopify does. */
  throttleOn(nth: number): void;
}

const shopifyCost = { requestedQueryCost: 0, actualQueryCost: 0, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1990, restoreRate: 100 } };

/** A throttled answer: 772 points asked, 572 available, 100 a second: come back in 2 s. */
export const shopifyThrottled = {
  errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
  extensions: { cost: { requestedQueryCost: 772, actualQueryCost: null, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 572, restoreRate: 100 } } },
};

function shopifyPlatform(token: string, throttles: Set<number>): Platform {
  const lines = (o: Raw): Raw[] => o.lineItems?.nodes ?? [];
  const linePage = (all: Raw[], first: number, cursor: string | null) => {
    const start = cursor === null ? 0 : Number(unbase64(cursor)) + 1;
    const nodes = all.slice(start, start + first);
    const end = start + nodes.length - 1;
    return { pageInfo: { hasNextPage: end < all.length - 1, endCursor: nodes.length ? base64(end) : null }, nodes };
  };
  const platform: Platform = {
    idOf: (o) => (typeof o.id === 'string' ? (/\/(\d+)$/.exec(o.id)?.[1] ?? null) : null),
    createdAt: (o) => Date.parse(o.createdAt),
    updatedAt: (o) => Date.parse(o.updatedAt ?? o.createdAt),
    touch: (o, at) => {
      o.updatedAt = at;
    },
    malform(o, kind) {
      if (kind === 'missing-id') delete o.id;
      else o.totalPriceSet = { shopMoney: { amount: 'twelve dollars', currencyCode: 'USD' } };
    },
    busy: { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' },
    handle(req, store) {
      if (req.headers['x-shopify-access-token'] !== token) {
        return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
      }
      if (req.method !== 'POST' || req.path !== '/admin/api/2025-01/graphql.json') return { status: 404, body: { errors: 'Not Found' } };
      if (throttles.delete(req.n)) return { status: 200, body: shopifyThrottled };
      const body = (req.body ?? {}) as { query?: string; variables?: Raw };
      const v = body.variables ?? {};
      if (/\borders\(/.test(body.query ?? '')) {
        const requested = shopifyQueryCost(v.first, v.lineItems);
        if (!(requested <= 1000)) {
          const message = `Query cost is ${requested}, which exceeds the single query max cost limit (1000).`;
          return { status: 200, body: { errors: [{ message, extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: 1000 } }] } };
        }
        const since = /created_at:>'([^']+)'/.exec(v.query ?? '')?.[1];
        const updatedSince = /updated_at:>'([^']+)'/.exec(v.query ?? '')?.[1];
        const list = after(store, platform, v.after ? unbase64(v.after) : undefined).filter(
          (e) => (!since || platform.createdAt(e.order) > Date.parse(since)) && (!updatedSince || platform.updatedAt(e.order) > Date.parse(updatedSince)),
        );
        const page = list.slice(0, v.first);
        const nodes = page.map((e) => ({ ...e.order, lineItems: linePage(lines(e.order), v.lineItems, null) }));
        const endCursor = page.length ? base64(positionOf(platform, page[page.length - 1])) : null;
        const orders = { pageInfo: { hasNextPage: list.length > page.length, endCursor }, nodes };
        return { status: 200, body: { data: { orders }, extensions: { cost: { ...shopifyCost, requestedQueryCost: requested } } } };
      }
      if (/\border\(id:/.test(body.query ?? '')) {
        const entry = store.entries.find((e) => e.order.id === v.id);
        if (!entry) return { status: 200, body: { data: { order: null } } };
        return { status: 200, body: { data: { order: { lineItems: linePage(lines(entry.order), v.first, v.after ?? null) } }, extensions: { cost: shopifyCost } } };
      }
      return { status: 200, body: { errors: [{ message: 'Unknown query', extensions: { code: 'undefinedField' } }] } };
    },
  };
  return platform;
}

export async function startFakeShopify(opts: FakeOptions = {}): Promise<FakeShopify> {
  const token = opts.token ?? 'shpat_fake_0001';
  const throttles = new Set<number>();
  const fake = await startFake(shopifyPlatform(token, throttles), { ...opts, token }, shopifyOrders);
  return Object.assign(fake, { throttleOn: (nth: number) => void throttles.add(nth) });
}

// ---------------------------------------------------------------------------------------------
// Mercado Libre

export interface FakeMercadoLibreOptions extends FakeOptions {
  sellerId?: string;
  /** The search refuses offsets at or past this (10,000 on the real API). */
  maxOffset?: number;
}

export interface FakeMercadoLibre extends FakeMarketplace {
  sellerId: string;
  /** Makes the order's shipment answer 404 (its shipping.id stays). */
  dropShipment(orderId: string): void;
}

function mercadolibrePlatform(token: string, sellerId: string, maxOffset: number): Platform {
  const platform: Platform = {
    idOf: (o) => (typeof o.id === 'number' ? String(o.id) : null),
    createdAt: (o) => Date.parse(o.date_created),
    updatedAt: (o) => Date.parse(o.last_updated ?? o.date_created),
    touch: (o, at) => {
      o.last_updated = at;
    },
    malform(o, kind) {
      if (kind === 'missing-id') delete o.id;
      else o.total_amount = 'mil pesos';
    },
    busy: { message: 'Too many requests', error: 'too_many_requests', status: 429, cause: [] },
    handle(req, store) {
      if (req.headers.authorization !== `Bearer ${token}`) {
        return { status: 401, body: { message: 'invalid access token', error: 'unauthorized', status: 401, cause: [] } };
      }
      const shipment = /^\/shipments\/(\d+)$/.exec(req.path);
      if (shipment) {
        const found = store.entries.find((e) => e.order.shipment && String(e.order.shipment.id) === shipment[1]);
        return found ? { status: 200, body: found.order.shipment } : { status: 404, body: { message: 'Shipment not found', error: 'not_found', status: 404, cause: [] } };
      }
      if (req.path !== '/orders/search') return { status: 404, body: { message: 'Not found', error: 'not_found', status: 404 } };
      if (req.query.get('seller') !== sellerId) return { status: 403, body: { message: 'caller.id does not match seller', error: 'forbidden', status: 403 } };
      const offset = Number(req.query.get('offset') ?? 0);
      const limit = Number(req.query.get('limit') ?? 50);
      if (limit > 51 || offset >= maxOffset) {
        return { status: 400, body: { message: `Invalid offset or limit (offset must be lower than ${maxOffset}, limit at most 51)`, error: 'bad_request', status: 400 } };
      }
      const from = req.query.get('order.date_created.from');
      const updatedFrom = req.query.get('order.last_updated.from');
      const list = store.entries.filter(
        (e) => (!from || platform.createdAt(e.order) >= Date.parse(from)) && (!updatedFrom || platform.updatedAt(e.order) >= Date.parse(updatedFrom)),
      );
      if (req.query.get('sort') === 'date_desc') list.reverse();
      const results = list.slice(offset, offset + limit).map(({ order }) => {
        const { shipment: _, ...rest } = order;
        return rest;
      });
      return { status: 200, body: { query: null, display: 'complete', paging: { total: list.length, offset, limit }, results, sort: { id: req.query.get('sort'), name: '' } } };
    },
  };
  return platform;
}

export async function startFakeMercadoLibre(opts: FakeMercadoLibreOptions = {}): Promise<FakeMercadoLibre> {
  const token = opts.token ?? 'APP_USR-fake-0001';
  const sellerId = opts.sellerId ?? '123456789';
  const fake = await startFake(mercadolibrePlatform(token, sellerId, opts.maxOffset ?? 10_000), { ...opts, token }, mercadolibreOrders);
  return Object.assign(fake, {
    sellerId,
    dropShipment(orderId: string) {
      const order = fake.orders.find((o) => String(o.id) === orderId);
      if (order) delete order.shipment;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Amazon

export interface FakeAmazonOptions extends FakeOptions {
  marketplaceId?: string;
  ordersPerPage?: number;
  itemsPerPage?: number;
}

export interface FakeAmazon extends FakeMarketplace {
  marketplaceId: string;
}

function amazonPlatform(token: string, marketplaceId: string, ordersPerPage: number, itemsPerPage: number): Platform {
  const platform: Platform = {
    idOf: (o) => (typeof o.AmazonOrderId === 'string' && o.AmazonOrderId ? o.AmazonOrderId : null),
    createdAt: (o) => Date.parse(o.PurchaseDate),
    updatedAt: (o) => Date.parse(o.LastUpdateDate ?? o.PurchaseDate),
    touch: (o, at) => {
      o.LastUpdateDate = at;
    },
    malform(o, kind) {
      if (kind === 'missing-id') delete o.AmazonOrderId;
      else o.OrderTotal = { CurrencyCode: 'USD', Amount: 'N/A' };
    },
    busy: { errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.', details: '' }] },
    handle(req, store) {
      if (req.headers['x-amz-access-token'] !== token) {
        return amazonError(403, 'Unauthorized', 'Access to requested resource is denied.', 'The access token you provided is revoked, malformed or invalid.');
      }
      const items = /^\/orders\/v0\/orders\/([^/]+)\/orderItems$/.exec(req.path);
      if (items) {
        const entry = store.entries.find((e) => e.order.AmazonOrderId === decodeURIComponent(items[1]));
        if (!entry) return amazonError(404, 'NotFound', 'Order not found');
        const all: Raw[] = entry.order.OrderItems ?? [];
        const next = req.query.get('NextToken');
        const start = next ? Number(unbase64(next)) : 0;
        const OrderItems = all.slice(start, start + itemsPerPage);
        const NextToken = start + itemsPerPage < all.length ? base64(start + itemsPerPage) : undefined;
        return { status: 200, body: { payload: { AmazonOrderId: entry.order.AmazonOrderId, OrderItems, NextToken } } };
      }
      if (req.path !== '/orders/v0/orders') return amazonError(404, 'NotFound', 'Resource not found');
      if (!(req.query.get('MarketplaceIds') ?? '').split(',').includes(marketplaceId)) return amazonError(400, 'InvalidInput', 'Invalid MarketplaceIds');
      const nextToken = req.query.get('NextToken');
      type State = { createdAfter: string | null; lastUpdatedAfter: string | null; position: { at: number; key: string } };
      const state = nextToken ? (unbase64(nextToken) as State) : undefined;
      const createdAfter = state ? state.createdAfter : req.query.get('CreatedAfter');
      const lastUpdatedAfter = state ? (state.lastUpdatedAfter ?? null) : req.query.get('LastUpdatedAfter');
      if (!createdAfter && !lastUpdatedAfter) return amazonError(400, 'InvalidInput', "Missing required 'CreatedAfter' or 'LastUpdatedAfter'.");
      if (createdAfter && lastUpdatedAfter) return amazonError(400, 'InvalidInput', "Only one of 'CreatedAfter' and 'LastUpdatedAfter' may be given.");
      const perPage = Math.min(Number(req.query.get('MaxResultsPerPage') ?? 100), ordersPerPage);
      const list = after(store, platform, state?.position).filter((e) =>
        createdAfter ? platform.createdAt(e.order) >= Date.parse(createdAfter) : platform.updatedAt(e.order) >= Date.parse(lastUpdatedAfter!),
      );
      const page = list.slice(0, perPage);
      const Orders = page.map(({ order }) => {
        const { OrderItems: _, ...rest } = order;
        return rest;
      });
      const NextToken = list.length > page.length ? base64({ createdAfter, lastUpdatedAfter, position: positionOf(platform, page[page.length - 1]) }) : undefined;
      return { status: 200, body: { payload: { Orders, NextToken, CreatedBefore: new Date().toISOString() } } };
    },
  };
  return platform;
}

const amazonError = (status: number, code: string, message: string, details = ''): Answer => ({ status, body: { errors: [{ code, message, details }] } });

export async function startFakeAmazon(opts: FakeAmazonOptions = {}): Promise<FakeAmazon> {
  const token = opts.token ?? 'Atza|fake-0001';
  const marketplaceId = opts.marketplaceId ?? 'ATVPDKIKX0DER';
  const fake = await startFake(amazonPlatform(token, marketplaceId, opts.ordersPerPage ?? 100, opts.itemsPerPage ?? 100), { ...opts, token }, amazonOrders);
  return Object.assign(fake, { marketplaceId });
}

// ---------------------------------------------------------------------------------------------

/** Every page a connector yields, and their orders and rejections together. */
export async function readAll(pages: AsyncIterable<MarketplacePage>) {
  const all: MarketplacePage[] = [];
  for await (const page of pages) all.push(page);
  return { pages: all, orders: all.flatMap((p) => p.orders), rejected: all.flatMap((p) => p.rejected) };
}

/** A sleep that returns at once and remembers what it was asked to wait. */
export function recordedSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}
