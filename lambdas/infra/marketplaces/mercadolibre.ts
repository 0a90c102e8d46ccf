import type { Address, MarketplaceConnector, MarketplaceOrder, MarketplaceOrderItem, OrderStatus } from '#core/orders/marketplace';
import { jsonClient, MarketplaceError, type HttpClientOptions, type JsonClient } from './http';
import { amount, asObject, count, credential, emptyAddress, endpoint, id, instant, mapPage, money, optionalAmount, sinceMs, text, textOrNull } from './records';

/**
 * Mercado Libre: `/orders/search` by seller, oldest first (`sort=date_asc`, so orders created
 * during the sync land at the end and never shift the offsets already read), 50 per page.
 *
 * The search refuses offsets past 10,000. When more orders remain, the window is narrowed: the
 * search starts again at offset 0 from the last `date_created` read, and the orders of that exact
 * instant that were already read are skipped. (More than 10,000 orders in one instant cannot be
 * read this way; that ends the fetch with an error rather than loop.)
 *
 * `updatedSince` adds `order.last_updated.from` (orders changed since then, whenever created).
 * The order and the narrowing stay on `date_created` (the search's documented sorts are
 * `date_asc` and `date_desc`): both filters hold on every request, so a restart still reads each
 * changed order once. An order changed during the fetch may enter the filtered list behind the
 * offset and is then read by the next sync, whose window starts before this one's.
 *
 * The order has no address: it is in the shipment (`GET /shipments/{shipping.id}`), read for each
 * order, four at a time. An order without a shipment (none yet, or 404) is kept with every address
 * field empty: the order exists and must be seen; its address arrives on a later sync. Any other
 * failure of the shipment request ends the fetch, as a failed page would.
 *
 * Status:
 *
 * | Mercado Libre                                                | status     |
 * |--------------------------------------------------------------|------------|
 * | paid, partially_refunded                                     | processing |
 * | cancelled, pending_cancel, invalid                           | cancelled  |
 * | confirmed, payment_required, payment_in_process, partially_paid, anything else | pending |
 *
 * pending_cancel is cancelled: the buyer's cancellation stands, only its refund is pending.
 * The shipping status lives in the shipment, not the order, so `shipped` and `delivered` are not
 * derived here. `financialStatus` is the order's status as ML says it.
 *
 * Fields: channelOrderId and orderNumber are the order id. The customer is the buyer (first and last
 * name, else nickname; email when ML shares it; phone the receiver's). A line's sku is its
 * `seller_sku`, else the ML item id; its id is the item id, with `-<variation_id>` when there is one.
 * Totals: subtotal is `total_amount` (the items), shipping the shipment's `shipping_option.cost`
 * (what the buyer pays; 0 without a shipment), tax and discount 0 (ML prices include taxes), total
 * their sum.
 */

export const mercadolibrePaging = { limit: 50, maxOffset: 10_000, shipmentConcurrency: 4 };

const statuses: Record<string, OrderStatus> = {
  paid: 'processing',
  partially_refunded: 'processing',
  cancelled: 'cancelled',
  pending_cancel: 'cancelled',
  invalid: 'cancelled',
};

export function mercadolibreStatus(status: unknown): OrderStatus {
  return statuses[String(status)] ?? 'pending';
}

/** ML's date filter format: `2025-03-01T00:00:00.000-00:00`. */
const mlDate = (iso: string) => new Date(iso).toISOString().replace(/Z$/, '-00:00');

export interface MercadoLibreOptions extends HttpClientOptions {
  paging?: Partial<typeof mercadolibrePaging>;
}

type Raw = Record<string, unknown>;

export function mercadolibreConnector(options: MercadoLibreOptions = {}): MarketplaceConnector {
  const http = jsonClient('meli', options);
  const paging = { ...mercadolibrePaging, ...options.paging };

  return {
    channel: 'meli',
    credentials: { required: ['accessToken', 'sellerId'] },
    async *fetchOrders(connection, { since, updatedSince, signal }) {
      const token = credential(connection, 'accessToken');
      const seller = credential(connection, 'sellerId');
      const headers = { Authorization: `Bearer ${token}` };
      const shipmentOf = (shipmentId: string) => shipment(http, connection.baseUrl, shipmentId, headers, signal);

      const start = sinceMs(since);
      const updatedFrom = sinceMs(updatedSince);
      const updatedFilter = updatedFrom === undefined ? undefined : mlDate(new Date(updatedFrom).toISOString());
      let from = start === undefined ? undefined : new Date(start).toISOString();
      let offset = 0;
      /** The newest creation instant read so far, and the ids read at exactly that instant. */
      let last: { at: string; ids: Set<string> } | undefined;
      let skip = new Set<string>();
      for (;;) {
        if (offset >= paging.maxOffset) {
          if (!last || last.at === from) {
            throw new MarketplaceError('meli', 'rejected', null, `meli: more than ${paging.maxOffset} orders created at ${from}; the search cannot page past them`);
          }
          from = last.at;
          skip = new Set(last.ids);
          offset = 0;
        }
        const body = asObject(
          await http.request({
            url: endpoint(connection.baseUrl, '/orders/search', {
              seller,
              'order.date_created.from': from && mlDate(from),
              'order.last_updated.from': updatedFilter,
              sort: 'date_asc',
              offset,
              limit: paging.limit,
            }),
            headers,
            signal,
          }),
        );
        const results = body.results;
        const total = Number(asObject(body.paging).total);
        if (!Array.isArray(results) || !Number.isFinite(total)) {
          throw new MarketplaceError('meli', 'bad_response', 200, 'meli: the search answer has no results or paging.total');
        }
        for (const r of results) last = advance(last, asObject(r));
        const fresh = results.filter((r) => !skip.has(String(asObject(r).id)));
        yield await mapPage(fresh, (r) => idOrNull(asObject(r).id), (r) => mapOrder(asObject(r), shipmentOf), paging.shipmentConcurrency);
        offset += results.length;
        if (results.length === 0 || offset >= total) return;
      }
    },
  };
}

export const mercadolibre = mercadolibreConnector();

const idOrNull = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v !== '') ? String(v) : null);

function advance(last: { at: string; ids: Set<string> } | undefined, r: Raw) {
  const at = Date.parse(String(r.date_created));
  const orderId = idOrNull(r.id);
  if (Number.isNaN(at) || orderId === null) return last;
  const iso = new Date(at).toISOString();
  if (last?.at === iso) {
    last.ids.add(orderId);
    return last;
  }
  return { at: iso, ids: new Set([orderId]) };
}

async function shipment(http: JsonClient, baseUrl: string, shipmentId: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Raw | undefined> {
  try {
    return asObject(await http.request({ url: endpoint(baseUrl, `/shipments/${encodeURIComponent(shipmentId)}`), headers, signal }));
  } catch (err) {
    if (err instanceof MarketplaceError && err.code === 'not_found') return undefined;
    throw err;
  }
}

async function mapOrder(o: Raw, shipmentOf: (id: string) => Promise<Raw | undefined>): Promise<MarketplaceOrder> {
  const channelOrderId = id(o.id, 'id');
  const lines = Array.isArray(o.order_items) ? o.order_items : [];
  const items = lines.map((line, i) => item(asObject(line), i));
  const subtotal = amount(o.total_amount, 'total_amount');
  const createdAt = instant(o.date_created, 'date_created');
  const shipmentId = idOrNull(asObject(o.shipping).id);
  const shipped = shipmentId ? await shipmentOf(shipmentId) : undefined;
  const shipping = shipped ? optionalAmount(asObject(shipped.shipping_option).cost, 'shipment.shipping_option.cost') : 0;
  const shippingAddress = shipped?.receiver_address ? address(asObject(shipped.receiver_address)) : emptyAddress();
  const buyer = asObject(o.buyer);
  return {
    channelOrderId,
    orderNumber: channelOrderId,
    createdAt,
    updatedAt: o.last_updated ? instant(o.last_updated, 'last_updated') : createdAt,
    status: mercadolibreStatus(o.status),
    financialStatus: textOrNull(o.status)?.toLowerCase() ?? null,
    customer: {
      name: [text(buyer.first_name), text(buyer.last_name)].filter(Boolean).join(' ') || text(buyer.nickname),
      email: text(buyer.email),
      phone: shippingAddress.phone ?? null,
    },
    shippingAddress,
    billingAddress: null,
    items,
    currency: text(o.currency_id) || text(asObject(lines[0]).currency_id),
    totals: { subtotal, shipping, tax: 0, discount: 0, total: money(subtotal + shipping) },
  };
}

function item(line: Raw, index: number): MarketplaceOrderItem {
  const it = asObject(line.item);
  const itemId = id(it.id, `order_items[${index}].item.id`);
  const variation = idOrNull(it.variation_id);
  return {
    channelItemId: variation ? `${itemId}-${variation}` : itemId,
    sku: text(it.seller_sku) || itemId,
    name: text(it.title),
    quantity: count(line.quantity, `order_items[${index}].quantity`),
    price: amount(line.unit_price, `order_items[${index}].unit_price`),
    weight: null,
  };
}

function address(a: Raw): Address {
  return {
    name: text(a.receiver_name),
    address1: [text(a.street_name), text(a.street_number)].filter(Boolean).join(' '),
    address2: textOrNull(a.comment),
    city: text(asObject(a.city).name),
    state: text(asObject(a.state).name),
    postal_code: text(a.zip_code),
    country: text(asObject(a.country).id),
    phone: textOrNull(a.receiver_phone),
  };
}
