/**
 * Orders: the record, the state table of spec 3.1 as the service decides it, and the pure rules
 * every operation checks. Storage and side effects live in lambdas/services/orders/orders.ts; this file
 * only decides, so every rule can be read (and tested) in one place.
 *
 * | Trigger                         | Condition                                            | Result                                                     |
 * |---------------------------------|------------------------------------------------------|------------------------------------------------------------|
 * | created unpaid                  |                                                      | status pending                                             |
 * | created paid / payment received |                                                      | status processing (timeline `payment_received`)           |
 * | ship / fulfill some items       | not cancelled, not delivered, quantities left        | fulfillment partial; status processing                     |
 * | ship / fulfill the last items   | same                                                 | fulfillment fulfilled; status shipped                      |
 * | tracking update `delivered`     | every shipment of a fulfilled order delivered        | status delivered                                           |
 * | cancel                          | fulfillment unfulfilled, status pending / processing | status cancelled, `cancelled_at` (else 409)                |
 * | PUT status                      | the channel allows that move (`channelStatusMoves`)  | status changes (else 409)                                  |
 * | PUT shipping_address            | fulfillment unfulfilled and not cancelled            | address replaced (else 409)                                |
 * | PUT notes                       | always                                               | notes replaced                                             |
 * | marketplace sync                | the marketplace's record is newer                    | its status applies only forward (never back), or cancelled |
 *
 * Fulfillment is never set by hand: it is derived from the shipped quantities against the
 * ordered quantities of each item. Every change appends a timeline entry.
 */
import type { Address, FormerChannel, FulfillmentStatus, OrderStatus } from './marketplace';

export type { Address, FulfillmentStatus, OrderStatus } from './marketplace';

export const orderStatuses = ['pending', 'processing', 'shipped', 'delivered', 'cancelled'] as const satisfies readonly OrderStatus[];
export const fulfillmentStatuses = ['unfulfilled', 'partial', 'fulfilled'] as const satisfies readonly FulfillmentStatus[];
/**
 * The five channel codes of spec 2.1: the web store plus four marketplaces and platforms
 * (`meli` is Mercado Libre; its former code `mercadolibre` is an input alias, see `channelAliases`).
 */
export const orderChannels = ['web', 'amazon', 'meli', 'shopify', 'ebay'] as const;
export type OrderChannel = (typeof orderChannels)[number];
/** `paid` is the one value spec 2.1 shows; the rest of the set is decided here. */
export const financialStatuses = ['pending', 'authorized', 'paid', 'partially_paid', 'partially_refunded', 'refunded', 'voided'] as const;

/** Shipment states (spec 2.2 shows `in_transit`; the rest is decided here). */
export const shipmentStatuses = ['in_transit', 'out_for_delivery', 'delivered', 'exception', 'returned'] as const;
export type ShipmentStatus = (typeof shipmentStatuses)[number];

export interface TimelineEntry {
  event: string;
  timestamp: string;
  description: string;
}

export interface OrderItemRecord {
  id: number;
  productId: number;
  sku: string;
  name: string;
  quantity: number;
  /** Unit price, in the order's currency. */
  price: number;
  weight: number | null;
  quantityFulfilled: number;
  channelItemId: string | null;
}

export interface ShipmentRecord {
  id: number;
  orderId: number;
  trackingNumber: string;
  carrier: string;
  service: string;
  status: ShipmentStatus;
  items: { orderItemId: number; sku: string; quantity: number }[];
  /** `label`: made here with a label; `external`: recorded by fulfill. */
  source: 'label' | 'external';
  labelKey: string | null;
  labelUrl: string | null;
  warehouseId: number | null;
  packages: { weight: number; length: number; width: number; height: number }[];
  estimatedDelivery: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** What the carrier charged for the label, when it says (external carriers). */
  cost?: { amount: number; currency: string } | null;
  /** What the carrier voids or tracks the shipment by, when not its tracking number (UPS's shipment id). */
  carrierReference?: string | null;
  /** When the carrier voided the label (the order was cancelled before it was used). */
  voidedAt?: string | null;
}

export interface Totals {
  subtotal: number;
  shipping: number;
  tax: number;
  discount: number;
  total: number;
}

export interface OrderRecord {
  id: number;
  accountId: number;
  orderNumber: string;
  channel: OrderChannel;
  channelOrderId: string | null;
  /** The marketplace's last-update time of the record we hold (sync applies only newer ones). */
  channelUpdatedAt: string | null;
  status: OrderStatus;
  fulfillmentStatus: FulfillmentStatus;
  financialStatus: string | null;
  customer: { name: string; email: string; phone: string | null };
  shippingAddress: Address;
  billingAddress: Address | null;
  items: OrderItemRecord[];
  currency: string;
  totals: Totals;
  notes: string | null;
  timeline: TimelineEntry[];
  shipments: ShipmentRecord[];
  cancelledAt: string | null;
  cancelReason: string | null;
  createdAt: string;
  updatedAt: string;
  /** Optimistic lock: every write is conditional on the version it read. */
  version: number;
  /**
   * Set by the reader when the order was stored under a former channel code (`mercadolibre`;
   * `channel` then holds the current one): writes keep storing that code, so the order, its list
   * row and its channel key stay together until `migrate channel-codes` moves all three.
   */
  storedChannel?: FormerChannel;
}

/** A refusal that the caller turns into 409 (state) or 422 (a field). */
export type Verdict = { ok: true } | { ok: false; kind: 'state'; message: string } | { ok: false; kind: 'field'; field: string; message: string };
const yes: Verdict = { ok: true };
const state = (message: string): Verdict => ({ ok: false, kind: 'state', message });
const field = (f: string, message: string): Verdict => ({ ok: false, kind: 'field', field: f, message });

/**
 * Which statuses PUT may set, per channel and current status. Marketplace orders follow their
 * marketplace (the sync brings their status), so PUT cannot move them; the web store and the
 * storefront platform are run by the merchant. `shipped` comes only from ship / fulfill and
 * `cancelled` only from cancel.
 */
export const channelStatusMoves: Record<OrderChannel, Partial<Record<OrderStatus, readonly OrderStatus[]>>> = {
  web: { pending: ['processing'], processing: ['pending'], shipped: ['delivered'] },
  shopify: { pending: ['processing'], processing: ['pending'], shipped: ['delivered'] },
  meli: {},
  amazon: {},
  ebay: {},
};

export function canSetStatus(order: OrderRecord, to: OrderStatus): Verdict {
  if (order.status === to) return yes;
  if (to === 'cancelled') return state('Cancel an order with POST /v1/orders/{id}/cancel.');
  if (to === 'shipped') return state('An order becomes shipped when its items are shipped (POST ship or fulfill).');
  const moves = channelStatusMoves[order.channel];
  if (!Object.keys(moves).length) return state(`The status of ${order.channel} orders is managed by the marketplace; it changes with the next sync.`);
  if (to === 'delivered' && order.fulfillmentStatus !== 'fulfilled') return state('Only a fulfilled order can be marked delivered.');
  if (!(moves[order.status] ?? []).includes(to)) return state(`A ${order.channel} order cannot move from ${order.status} to ${to}.`);
  return yes;
}

export function canChangeAddress(order: OrderRecord): Verdict {
  if (order.status === 'cancelled') return state('The order is cancelled.');
  if (order.fulfillmentStatus !== 'unfulfilled') return state('The shipping address can change only before fulfillment.');
  return yes;
}

export function canCancel(order: OrderRecord): Verdict {
  if (order.fulfillmentStatus !== 'unfulfilled') return state(`Only unfulfilled orders can be cancelled; this one is ${order.fulfillmentStatus}.`);
  if (order.status !== 'pending' && order.status !== 'processing') return state(`A ${order.status} order cannot be cancelled.`);
  return yes;
}

export interface ShipLine {
  orderItemId: number;
  quantity: number;
}

/**
 * Checks lines against the order: every item id is the order's, quantities are whole and
 * positive, and no item ships more than is left of it (ordered - fulfilled). `path(i)` names a
 * line's field as the client sent it.
 */
export function checkLines(order: OrderRecord, lines: ShipLine[], path: (i: number, f: string) => string): Verdict {
  if (order.status === 'cancelled') return state('The order is cancelled.');
  if (order.status === 'delivered') return state('The order is already delivered.');
  if (order.fulfillmentStatus === 'fulfilled') return state('Every item of this order is already fulfilled.');
  if (!lines.length) return field(path(0, 'order_item_id'), 'At least one item must ship.');
  const byId = new Map(order.items.map((i) => [i.id, i]));
  const asked = new Map<number, number>();
  for (const [i, line] of lines.entries()) {
    const item = byId.get(line.orderItemId);
    if (!item) return field(path(i, 'order_item_id'), `Order ${order.id} has no item ${line.orderItemId}.`);
    const total = (asked.get(item.id) ?? 0) + line.quantity;
    const left = item.quantity - item.quantityFulfilled;
    if (total > left) return field(path(i, 'quantity'), `Item ${item.id} (${item.sku}) has ${left} left to ship; ${total} asked.`);
    asked.set(item.id, total);
  }
  return yes;
}

/** Every item's remaining quantity: what fulfill ships when it names no items. */
export function remainingLines(order: OrderRecord): ShipLine[] {
  return order.items.filter((i) => i.quantity > i.quantityFulfilled).map((i) => ({ orderItemId: i.id, quantity: i.quantity - i.quantityFulfilled }));
}

export function fulfillmentOf(items: OrderItemRecord[]): FulfillmentStatus {
  const shipped = items.reduce((n, i) => n + i.quantityFulfilled, 0);
  if (shipped === 0) return 'unfulfilled';
  return items.every((i) => i.quantityFulfilled >= i.quantity) ? 'fulfilled' : 'partial';
}

/** The order after `shipment` left with `lines`: quantities, fulfillment, status, timeline. */
export function withShipment(order: OrderRecord, shipment: ShipmentRecord, at: string, description: string): OrderRecord {
  const add = new Map<number, number>();
  for (const l of shipment.items) add.set(l.orderItemId, (add.get(l.orderItemId) ?? 0) + l.quantity);
  const items = order.items.map((i) => ({ ...i, quantityFulfilled: i.quantityFulfilled + (add.get(i.id) ?? 0) }));
  const fulfillmentStatus = fulfillmentOf(items);
  const status: OrderStatus = fulfillmentStatus === 'fulfilled' ? 'shipped' : 'processing';
  const timeline = [...order.timeline, { event: shipment.source === 'label' ? 'shipment_created' : 'fulfilled_externally', timestamp: at, description }];
  if (status !== order.status) timeline.push(statusEntry(order.status, status, at));
  return { ...order, items, fulfillmentStatus, status, shipments: [...order.shipments, shipment], timeline, updatedAt: at };
}

export function statusEntry(from: OrderStatus, to: OrderStatus, at: string, why?: string): TimelineEntry {
  return { event: `status_${to}`, timestamp: at, description: `Status changed from ${from} to ${to}${why ? ` (${why})` : ''}.` };
}

/** Totals from the lines, in cents so 0.1 + 0.2 stays 0.3. */
export function computeTotals(items: { quantity: number; price: number }[], extra: { shipping?: number; tax?: number; discount?: number }): Totals {
  const cents = (x: number) => Math.round(x * 100);
  const subtotal = items.reduce((s, i) => s + cents(i.price) * i.quantity, 0);
  const shipping = cents(extra.shipping ?? 0);
  const tax = cents(extra.tax ?? 0);
  const discount = cents(extra.discount ?? 0);
  return { subtotal: subtotal / 100, shipping: shipping / 100, tax: tax / 100, discount: discount / 100, total: (subtotal + shipping + tax - discount) / 100 };
}

/** Marketplace statuses move an order forward only (a sync never undoes a local shipment). */
const rank: Record<OrderStatus, number> = { pending: 0, processing: 1, shipped: 2, delivered: 3, cancelled: 4 };
export function syncedStatus(local: OrderRecord, remote: OrderStatus): OrderStatus {
  if (remote === 'cancelled') return local.fulfillmentStatus === 'unfulfilled' ? 'cancelled' : local.status;
  if (local.status === 'cancelled') return local.status;
  return rank[remote] > rank[local.status] ? remote : local.status;
}

/** Shipment status moves from the tracking-update entry point; `delivered` is final. */
export function canMoveShipment(from: ShipmentStatus, to: ShipmentStatus): boolean {
  if (from === to) return true;
  return from !== 'delivered' && from !== 'returned';
}

/** The order's status once its shipments changed: delivered when fulfilled and every shipment is. */
export function statusAfterTracking(order: OrderRecord): OrderStatus {
  if (order.status === 'shipped' && order.fulfillmentStatus === 'fulfilled' && order.shipments.length && order.shipments.every((s) => s.status === 'delivered')) return 'delivered';
  return order.status;
}

/** Text a search matches: order number and customer name, lower-cased, accents removed. */
export function searchable(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
}

/**
 * What an order may take as stored: DynamoDB keeps an item to 400 KB. A new order may take
 * `orderCreateMaxBytes` (its items, names, addresses and notes), which leaves room for the
 * shipments and timeline entries its life adds; any write stops at `orderMaxBytes`. Measured as
 * the record's JSON in UTF-8, a little above DynamoDB's own count of the same item.
 */
export const orderCreateMaxBytes = 250 * 1024;
export const orderMaxBytes = 360 * 1024;
export const storedBytes = (order: OrderRecord) => Buffer.byteLength(JSON.stringify(order));

/**
 * The timeline with `entry` added: a marketplace's update right after another one replaces it
 * (the order says when it was last synced), so syncing an order again and again does not grow it.
 */
export function withTimelineEntry(timeline: readonly TimelineEntry[], entry: TimelineEntry): TimelineEntry[] {
  const last = timeline[timeline.length - 1];
  return last?.event === 'synced' && entry.event === 'synced' ? [...timeline.slice(0, -1), entry] : [...timeline, entry];
}
