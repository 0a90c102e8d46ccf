import type { Address, MarketplaceConnector, MarketplaceOrder, OrderStatus } from '#core/orders/marketplace';
import { now } from '../clock';
import { jsonClient, MarketplaceError, type HttpClientOptions, type JsonClient, type RetryPolicy } from './http';
import { amount, asObject, count, credential, emptyAddress, endpoint, id, instant, mapPage, money, optionalAmount, RecordError, sinceMs, sum, text, textOrNull } from './records';

/**
 * Amazon: Selling Partner API, Orders v0. `getOrders` by marketplace and `CreatedAfter`, then
 * `NextToken` to the end; each order's lines from `getOrderItems` (itself paged by NextToken), two
 * orders at a time.
 *
 * `CreatedAfter` is required when no other filter is given, so without `since` the fetch reads the
 * last 30 days. Amazon also refuses a `CreatedAfter` less than two minutes old; a later `since` is
 * moved back to that.
 *
 * `updatedSince` is `LastUpdatedAfter` (same two-minute rule). SP-API accepts exactly one of
 * `CreatedAfter` and `LastUpdatedAfter`, so with `updatedSince` the `CreatedAfter` is omitted; when
 * `since` is given too, orders created at or before it are dropped from the answer here.
 *
 * Amazon's 429 rarely carries Retry-After and getOrders refills slowly (about one request a
 * minute after a burst of 20), so its backoff starts at 2 s and may wait up to 60 s, six attempts.
 *
 * Status:
 *
 * | Amazon OrderStatus              | status     | financialStatus |
 * |---------------------------------|------------|-----------------|
 * | Pending, PendingAvailability    | pending    | pending         |
 * | Unshipped, PartiallyShipped     | processing | paid            |
 * | Shipped, InvoiceUnconfirmed     | shipped    | paid            |
 * | Canceled, Unfulfillable         | cancelled  | null            |
 *
 * InvoiceUnconfirmed means every item has shipped (only the invoice is unconfirmed). Amazon does
 * not report delivery in the order, so `delivered` is not derived. Amazon has no payment status:
 * `financialStatus` is derived as in the table.
 *
 * Fields: channelOrderId and orderNumber are AmazonOrderId. `ItemPrice` is the line's price for its
 * whole quantity, so the unit price is ItemPrice / QuantityOrdered (4 decimals). Totals add the
 * lines: subtotal ItemPrice, shipping ShippingPrice, tax ItemTax + ShippingTax, discount
 * PromotionDiscount + ShippingDiscount; total is OrderTotal (absent on pending orders: then the sum).
 * Buyer and address fields are PII that Amazon returns only to a restricted data token: with a
 * plain access token they are empty.
 */

export const amazonPaging = { maxResultsPerPage: 100, itemConcurrency: 2, defaultWindowDays: 30, minAgeMs: 2 * 60_000 };

export const amazonRetryPolicy: Partial<RetryPolicy> = { maxAttempts: 6, baseDelayMs: 2_000, maxDelayMs: 60_000 };

const statuses: Record<string, { status: OrderStatus; financial: string | null }> = {
  Pending: { status: 'pending', financial: 'pending' },
  PendingAvailability: { status: 'pending', financial: 'pending' },
  Unshipped: { status: 'processing', financial: 'paid' },
  PartiallyShipped: { status: 'processing', financial: 'paid' },
  Shipped: { status: 'shipped', financial: 'paid' },
  InvoiceUnconfirmed: { status: 'shipped', financial: 'paid' },
  Canceled: { status: 'cancelled', financial: null },
  Unfulfillable: { status: 'cancelled', financial: null },
};

export function amazonStatus(orderStatus: unknown): { status: OrderStatus; financial: string | null } {
  return statuses[String(orderStatus)] ?? { status: 'pending', financial: null };
}

export interface AmazonOptions extends HttpClientOptions {
  paging?: Partial<typeof amazonPaging>;
}

type Raw = Record<string, unknown>;

export function amazonConnector(options: AmazonOptions = {}): MarketplaceConnector {
  const http = jsonClient('amazon', { ...amazonRetryPolicy, ...options });
  const paging = { ...amazonPaging, ...options.paging };

  return {
    channel: 'amazon',
    credentials: { required: ['accessToken', 'marketplaceId'] },
    async *fetchOrders(connection, { since, updatedSince, signal }) {
      const token = credential(connection, 'accessToken');
      const marketplaceId = credential(connection, 'marketplaceId');
      const get = (path: string, query: Record<string, string | number | undefined>) =>
        payloadOf(http, endpoint(connection.baseUrl, path, query), token, signal);
      const itemsOf = async (orderId: string): Promise<Raw[]> => {
        const items: Raw[] = [];
        for (let next: string | undefined, first = true; first || next; first = false) {
          const payload = await get(`/orders/v0/orders/${encodeURIComponent(orderId)}/orderItems`, { NextToken: next });
          if (!Array.isArray(payload.OrderItems)) throw new MarketplaceError('amazon', 'bad_response', 200, 'amazon: orderItems answer without OrderItems');
          items.push(...payload.OrderItems.map(asObject));
          next = textOrNull(payload.NextToken) ?? undefined;
        }
        return items;
      };

      const from = sinceMs(since);
      const updatedFrom = sinceMs(updatedSince);
      const latest = now().getTime() - paging.minAgeMs;
      // SP-API takes exactly one of CreatedAfter and LastUpdatedAfter; with both options, the
      // creation bound is applied here to what LastUpdatedAfter answers.
      const window: Record<string, string> =
        updatedFrom !== undefined
          ? { LastUpdatedAfter: new Date(Math.min(updatedFrom, latest)).toISOString() }
          : { CreatedAfter: new Date(from === undefined ? now().getTime() - paging.defaultWindowDays * 86_400_000 : Math.min(from, latest)).toISOString() };
      const createdAfter = updatedFrom !== undefined && from !== undefined ? from : undefined;
      const wanted = (o: unknown) => createdAfter === undefined || !(Date.parse(String(asObject(o).PurchaseDate)) <= createdAfter);
      let query: Record<string, string | number | undefined> = { MarketplaceIds: marketplaceId, ...window, MaxResultsPerPage: paging.maxResultsPerPage };
      for (;;) {
        const payload = await get('/orders/v0/orders', query);
        if (!Array.isArray(payload.Orders)) throw new MarketplaceError('amazon', 'bad_response', 200, 'amazon: getOrders answer without Orders');
        yield await mapPage(payload.Orders.filter(wanted), (o) => textOrNull(asObject(o).AmazonOrderId), (o) => mapOrder(asObject(o), itemsOf), paging.itemConcurrency);
        const next = textOrNull(payload.NextToken);
        if (!next) return;
        query = { MarketplaceIds: marketplaceId, NextToken: next };
      }
    },
  };
}

export const amazon = amazonConnector();

async function payloadOf(http: JsonClient, url: URL, token: string, signal?: AbortSignal): Promise<Raw> {
  const body = asObject(await http.request({ url, headers: { 'x-amz-access-token': token }, signal }));
  return asObject(body.payload);
}

async function mapOrder(o: Raw, itemsOf: (orderId: string) => Promise<Raw[]>): Promise<MarketplaceOrder> {
  const channelOrderId = id(o.AmazonOrderId, 'AmazonOrderId');
  const createdAt = instant(o.PurchaseDate, 'PurchaseDate');
  const updatedAt = o.LastUpdateDate ? instant(o.LastUpdateDate, 'LastUpdateDate') : createdAt;
  const orderTotal = o.OrderTotal ? asObject(o.OrderTotal) : undefined;
  const total = orderTotal ? amount(orderTotal.Amount, 'OrderTotal.Amount') : undefined;
  let lines: Raw[];
  try {
    lines = await itemsOf(channelOrderId);
  } catch (err) {
    if (err instanceof MarketplaceError && err.code === 'not_found') throw new RecordError('its order items were not found');
    throw err;
  }
  const lineSum = (field: string) => sum(lines.map((line, i) => optionalAmount(asObject(line[field]).Amount, `OrderItems[${i}].${field}.Amount`)));
  const items = lines.map((line, i) => {
    const quantity = count(line.QuantityOrdered, `OrderItems[${i}].QuantityOrdered`);
    const linePrice = optionalAmount(asObject(line.ItemPrice).Amount, `OrderItems[${i}].ItemPrice.Amount`);
    return {
      channelItemId: id(line.OrderItemId, `OrderItems[${i}].OrderItemId`),
      sku: text(line.SellerSKU),
      name: text(line.Title),
      quantity,
      price: quantity > 0 ? money(linePrice / quantity) : 0,
      weight: null,
    };
  });
  const subtotal = lineSum('ItemPrice');
  const shipping = lineSum('ShippingPrice');
  const tax = money(lineSum('ItemTax') + lineSum('ShippingTax'));
  const discount = money(lineSum('PromotionDiscount') + lineSum('ShippingDiscount'));
  const shippingAddress = o.ShippingAddress ? address(asObject(o.ShippingAddress)) : emptyAddress();
  const buyer = asObject(o.BuyerInfo);
  const { status, financial } = amazonStatus(o.OrderStatus);
  return {
    channelOrderId,
    orderNumber: channelOrderId,
    createdAt,
    updatedAt,
    status,
    financialStatus: financial,
    customer: { name: text(buyer.BuyerName) || shippingAddress.name, email: text(buyer.BuyerEmail), phone: shippingAddress.phone ?? null },
    shippingAddress,
    billingAddress: null,
    items,
    currency: text(orderTotal?.CurrencyCode) || text(asObject(lines[0]?.ItemPrice).CurrencyCode),
    totals: { subtotal, shipping, tax, discount, total: total ?? money(subtotal + shipping + tax - discount) },
  };
}

function address(a: Raw): Address {
  return {
    name: text(a.Name),
    address1: text(a.AddressLine1),
    address2: textOrNull(a.AddressLine2),
    city: text(a.City),
    state: text(a.StateOrRegion),
    postal_code: text(a.PostalCode),
    country: text(a.CountryCode),
    phone: textOrNull(a.Phone),
  };
}
