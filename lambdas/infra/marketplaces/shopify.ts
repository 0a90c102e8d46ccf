import type { Address, MarketplaceConnector, MarketplaceOrder, MarketplaceOrderItem, OrderStatus } from '#core/orders/marketplace';
import { jsonClient, MarketplaceError, type HttpClientOptions, type JsonClient } from './http';
import { amount, asObject, count, credential, emptyAddress, endpoint, id, instant, mapPage, RecordError, sinceMs, text, textOrNull } from './records';

/**
 * Shopify: the Admin GraphQL API, `orders` sorted by creation, followed by cursor to the end.
 * `since` is the search `created_at:>'<iso>'`; `updatedSince` is `updated_at:>'<iso>'`, sorted by
 * update instead (`sortKey: UPDATED_AT`); both together are joined with AND.
 *
 * Page sizes: Shopify refuses a query whose requested cost is over 1,000 points, and a nested
 * connection multiplies (orders x line items x ~6 points per line here), so `orders(first: 100)`
 * with `lineItems(first: 250)` would be refused outright. Ten orders with their first ten lines
 * cost about 780; an order with more lines has the rest read with a query of its own
 * (`order(id) { lineItems(first: 100, after) }`, about 600).
 *
 * Shopify says "throttled" in a 200 body (`errors[].extensions.code: THROTTLED`); that is retried
 * like a 429, waiting what `extensions.cost.throttleStatus` says it takes to refill.
 *
 * Status, first row that matches:
 *
 * | Shopify                                                      | status     |
 * |--------------------------------------------------------------|------------|
 * | `cancelledAt` set                                            | cancelled  |
 * | displayFulfillmentStatus FULFILLED                           | shipped    |
 * | displayFulfillmentStatus PARTIALLY_FULFILLED                 | processing |
 * | displayFinancialStatus PAID or PARTIALLY_REFUNDED            | processing |
 * | anything else (PENDING, AUTHORIZED, REFUNDED, VOIDED, ...)   | pending    |
 *
 * AUTHORIZED is pending: the money is not captured yet. `delivered` is never derived: the order's
 * fulfillment status does not say delivery. `financialStatus` is displayFinancialStatus lower-cased.
 *
 * Fields: channelOrderId is the number at the end of the gid (`gid://shopify/Order/5001` -> `5001`),
 * orderNumber the `name` (`#1001`). Amounts are shop money (the shop's currency). The state of an
 * address is the province's name (its code when there is no name). The customer's name is the
 * customer's, else the shipping address's; email and phone the order's, else the customer's.
 * Weights are converted to kilograms. An order without a shipping address (digital goods, pickup)
 * has every address field empty.
 */

export const shopifyApiVersion = '2025-01';

export const shopifyPageSizes = { orders: 10, lineItemsPerOrder: 10, moreLineItems: 100 };

const byFulfillment: Record<string, OrderStatus> = { FULFILLED: 'shipped', PARTIALLY_FULFILLED: 'processing' };
const paid = new Set(['PAID', 'PARTIALLY_REFUNDED']);

export function shopifyStatus(order: { cancelledAt?: unknown; displayFulfillmentStatus?: unknown; displayFinancialStatus?: unknown }): OrderStatus {
  if (order.cancelledAt) return 'cancelled';
  return byFulfillment[String(order.displayFulfillmentStatus)] ?? (paid.has(String(order.displayFinancialStatus)) ? 'processing' : 'pending');
}

/** Kilograms per unit of Shopify's WeightUnit. */
const kilogramsPer: Record<string, number> = { KILOGRAMS: 1, GRAMS: 0.001, POUNDS: 0.45359237, OUNCES: 0.028349523125 };

const addressFields = 'name address1 address2 city province provinceCode zip countryCodeV2 phone';
const lineItemFields =
  'id sku name quantity originalUnitPriceSet { shopMoney { amount } } variant { inventoryItem { measurement { weight { unit value } } } }';
const moneySet = '{ shopMoney { amount currencyCode } }';

export const ordersQuery = `query DespachoOrders($first: Int!, $after: String, $query: String, $sortKey: OrderSortKeys, $lineItems: Int!) {
  orders(first: $first, after: $after, query: $query, sortKey: $sortKey) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id name createdAt updatedAt cancelledAt displayFinancialStatus displayFulfillmentStatus email phone currencyCode
      customer { firstName lastName email phone }
      shippingAddress { ${addressFields} }
      billingAddress { ${addressFields} }
      subtotalPriceSet ${moneySet}
      totalShippingPriceSet ${moneySet}
      totalTaxSet ${moneySet}
      totalDiscountsSet ${moneySet}
      totalPriceSet ${moneySet}
      lineItems(first: $lineItems) { pageInfo { hasNextPage endCursor } nodes { ${lineItemFields} } }
    }
  }
}`;

export const lineItemsQuery = `query DespachoOrderLineItems($id: ID!, $first: Int!, $after: String) {
  order(id: $id) {
    lineItems(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { ${lineItemFields} } }
  }
}`;

interface Connection<T> {
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: T[];
}

type Node = Record<string, unknown>;

/** A THROTTLED answer: the wait until the bucket holds the query's cost, or null to back off. */
export function shopifyThrottle(body: unknown): number | null | undefined {
  const errors = asObject(body).errors;
  if (!Array.isArray(errors) || !errors.some((e) => asObject(asObject(e).extensions).code === 'THROTTLED')) return undefined;
  const cost = asObject(asObject(body).extensions).cost;
  const requested = Number(asObject(cost).requestedQueryCost);
  const status = asObject(asObject(cost).throttleStatus);
  const available = Number(status.currentlyAvailable);
  const restoreRate = Number(status.restoreRate);
  if (![requested, available, restoreRate].every(Number.isFinite) || restoreRate <= 0) return null;
  return Math.max(0, Math.ceil(((requested - available) / restoreRate) * 1000));
}

export interface ShopifyOptions extends HttpClientOptions {
  pageSizes?: Partial<typeof shopifyPageSizes>;
}

export function shopifyConnector(options: ShopifyOptions = {}): MarketplaceConnector {
  const http = jsonClient('shopify', options);
  const sizes = { ...shopifyPageSizes, ...options.pageSizes };

  return {
    channel: 'shopify',
    credentials: { required: ['accessToken'], optional: ['shop'] },
    async *fetchOrders(connection, { since, updatedSince, signal }) {
      const token = credential(connection, 'accessToken');
      const graphql = (query: string, variables: Record<string, unknown>) => ask(http, connection.baseUrl, token, query, variables, signal);
      const moreLines = async (orderGid: string, after: string): Promise<Node[]> => {
        const lines: Node[] = [];
        for (let cursor: string | null = after; cursor; ) {
          const data = await graphql(lineItemsQuery, { id: orderGid, first: sizes.moreLineItems, after: cursor });
          const page = connectionAt(data, ['order', 'lineItems']);
          lines.push(...page.nodes);
          cursor = page.pageInfo.hasNextPage ? nextCursor(page) : null;
        }
        return lines;
      };
      const from = sinceMs(since);
      const updatedFrom = sinceMs(updatedSince);
      const filters = [
        from === undefined ? null : `created_at:>'${new Date(from).toISOString()}'`,
        updatedFrom === undefined ? null : `updated_at:>'${new Date(updatedFrom).toISOString()}'`,
      ].filter((f): f is string => f !== null);
      const search = filters.length ? filters.join(' AND ') : null;
      const sortKey = updatedFrom === undefined ? 'CREATED_AT' : 'UPDATED_AT';
      for (let after: string | null = null; ; ) {
        const data = await graphql(ordersQuery, { first: sizes.orders, after, query: search, sortKey, lineItems: sizes.lineItemsPerOrder });
        const page = connectionAt(data, ['orders']);
        yield await mapPage(page.nodes, (n) => orderIdOf(asObject(n).id), (n) => mapOrder(asObject(n), moreLines));
        if (!page.pageInfo.hasNextPage) return;
        after = nextCursor(page);
      }
    },
  };
}

export const shopify = shopifyConnector();

async function ask(http: JsonClient, baseUrl: string, token: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal) {
  const body = await http.request<unknown>({
    method: 'POST',
    url: endpoint(baseUrl, `/admin/api/${shopifyApiVersion}/graphql.json`),
    headers: { 'X-Shopify-Access-Token': token },
    body: { query, variables },
    signal,
    throttled: shopifyThrottle,
  });
  const errors = asObject(body).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const denied = errors.some((e) => asObject(asObject(e).extensions).code === 'ACCESS_DENIED');
    const messages = errors.map((e) => text(asObject(e).message) || JSON.stringify(e)).join('; ');
    throw new MarketplaceError('shopify', denied ? 'unauthorized' : 'rejected', 200, `shopify: the query was refused: ${messages}`);
  }
  return asObject(asObject(body).data);
}

function connectionAt(data: Record<string, unknown>, path: string[]): Connection<Node> {
  let at: unknown = data;
  for (const key of path) at = asObject(at)[key];
  const conn = asObject(at);
  if (!Array.isArray(conn.nodes) || typeof asObject(conn.pageInfo).hasNextPage !== 'boolean') {
    throw new MarketplaceError('shopify', 'bad_response', 200, `shopify: the answer has no ${path.join('.')} connection`);
  }
  return conn as unknown as Connection<Node>;
}

function nextCursor(page: Connection<Node>): string {
  if (!page.pageInfo.endCursor) throw new MarketplaceError('shopify', 'bad_response', 200, 'shopify: hasNextPage without an endCursor');
  return page.pageInfo.endCursor;
}

/** The number at the end of a gid (`gid://shopify/Order/5001` -> `5001`); null when there is none. */
function orderIdOf(gid: unknown): string | null {
  return typeof gid === 'string' ? (/^gid:\/\/shopify\/Order\/(\d+)$/.exec(gid)?.[1] ?? null) : null;
}

const shopMoney = (set: unknown, field: string) => amount(asObject(asObject(set).shopMoney).amount, field);
const optionalShopMoney = (set: unknown, field: string) => (set === null || set === undefined ? 0 : shopMoney(set, field));

async function mapOrder(o: Node, moreLines: (gid: string, after: string) => Promise<Node[]>): Promise<MarketplaceOrder> {
  const channelOrderId = orderIdOf(o.id);
  if (!channelOrderId) throw new RecordError(`id is not an order gid: ${JSON.stringify(o.id) ?? 'missing'}`);
  const createdAt = instant(o.createdAt, 'createdAt');
  const updatedAt = instant(o.updatedAt ?? o.createdAt, 'updatedAt');
  const totals = {
    subtotal: shopMoney(o.subtotalPriceSet, 'subtotalPriceSet'),
    shipping: optionalShopMoney(o.totalShippingPriceSet, 'totalShippingPriceSet'),
    tax: optionalShopMoney(o.totalTaxSet, 'totalTaxSet'),
    discount: optionalShopMoney(o.totalDiscountsSet, 'totalDiscountsSet'),
    total: shopMoney(o.totalPriceSet, 'totalPriceSet'),
  };
  const lineItems = asObject(o.lineItems);
  const nodes = Array.isArray(lineItems.nodes) ? (lineItems.nodes as Node[]) : [];
  const pageInfo = asObject(lineItems.pageInfo);
  const lines = pageInfo.hasNextPage && typeof pageInfo.endCursor === 'string' ? [...nodes, ...(await moreLines(String(o.id), pageInfo.endCursor))] : nodes;
  const customer = asObject(o.customer);
  const shippingAddress = o.shippingAddress ? address(asObject(o.shippingAddress)) : emptyAddress();
  return {
    channelOrderId,
    orderNumber: text(o.name) || channelOrderId,
    createdAt,
    updatedAt,
    status: shopifyStatus(o),
    financialStatus: textOrNull(o.displayFinancialStatus)?.toLowerCase() ?? null,
    customer: {
      name: [text(customer.firstName), text(customer.lastName)].filter(Boolean).join(' ') || shippingAddress.name,
      email: text(o.email) || text(customer.email),
      phone: textOrNull(o.phone) ?? textOrNull(customer.phone) ?? shippingAddress.phone ?? null,
    },
    shippingAddress,
    billingAddress: o.billingAddress ? address(asObject(o.billingAddress)) : null,
    items: lines.map((line, i) => lineItem(asObject(line), i)),
    currency: text(o.currencyCode) || text(asObject(asObject(o.totalPriceSet).shopMoney).currencyCode),
    totals,
  };
}

function address(a: Node): Address {
  return {
    name: text(a.name),
    address1: text(a.address1),
    address2: textOrNull(a.address2),
    city: text(a.city),
    state: text(a.province) || text(a.provinceCode),
    postal_code: text(a.zip),
    country: text(a.countryCodeV2),
    phone: textOrNull(a.phone),
  };
}

function lineItem(line: Node, index: number): MarketplaceOrderItem {
  const gid = id(line.id, `lineItems[${index}].id`);
  const weight = asObject(asObject(asObject(asObject(line.variant).inventoryItem).measurement).weight);
  const factor = kilogramsPer[String(weight.unit)];
  const value = typeof weight.value === 'number' ? weight.value : NaN;
  return {
    channelItemId: /\/(\d+)$/.exec(gid)?.[1] ?? gid,
    sku: text(line.sku),
    name: text(line.name),
    quantity: count(line.quantity, `lineItems[${index}].quantity`),
    price: amount(asObject(asObject(line.originalUnitPriceSet).shopMoney).amount, `lineItems[${index}].originalUnitPriceSet`),
    weight: factor !== undefined && Number.isFinite(value) ? Math.round(value * factor * 1e6) / 1e6 : null,
  };
}
