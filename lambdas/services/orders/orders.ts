/**
 * The order use cases of spec 4.1: create (web store), list, read, update, cancel, and the upsert
 * the marketplace sync uses; shipments (ship, fulfill, labels, tracking) are in
 * services/shipping/shipments.ts, so the functions that never ship do not carry the label code.
 * The rules are in core/orders/model.ts; here they meet storage and events.
 *
 * Every change reads the order, decides, and writes it back conditional on the version it read;
 * a lost race reads again and decides again.
 */
import type { Principal } from '#core/auth/principal';
import { Conflict, NotFound, ValidationFailed } from '#core/errors';
import {
  canCancel,
  canChangeAddress,
  canSetStatus,
  computeTotals,
  orderCreateMaxBytes,
  orderMaxBytes,
  statusEntry,
  storedBytes,
  syncedStatus,
  withTimelineEntry,
  type Address,
  type OrderChannel,
  type OrderRecord,
  type OrderStatus,
  type TimelineEntry,
  type Verdict,
} from '#core/orders/model';
import type { MarketplaceOrder, SyncChannel } from '#core/orders/marketplace';
import { orderCreatedPayload } from '#core/webhooks/payloads';
import { orderSummary } from '#core/orders/views';
import { nowIso } from '#infra/clock';
import { nextId, nextIds } from '#infra/entities/counters';
import { getOrder, insertOrder, orderIdByChannel, orderIdByNumber, replaceOrder, type TransactItem } from '#infra/entities/orders';
import { productsFor } from '#infra/entities/products';
import { once } from '../idempotency';
import { publishEvents } from '../publish';
import { recordMetric } from '#shared/metrics';

/** A rule's refusal as the HTTP answer: 409 for the order's state, 422 naming the field. */
export function refuse(v: Verdict): void {
  if (v.ok) return;
  if (v.kind === 'state') throw new Conflict(v.message);
  throw new ValidationFailed({ [v.field]: [v.message] });
}

/** The caller's order; another account's order is simply not found. */
export async function findOrder(principal: Principal, id: number): Promise<OrderRecord> {
  const order = await getOrder(id);
  if (!order || order.accountId !== principal.accountId) throw new NotFound(`Order ${id} not found.`);
  return order;
}

/**
 * Reads, decides and writes conditionally on the version read; on a lost race, again (a few
 * times). `decide` returns the next record and the writes that must land with it, or throws.
 * `read` is the order as the caller already read it, used for the first attempt.
 */
export async function change<T>(
  principal: Principal,
  id: number,
  decide: (order: OrderRecord) => Promise<{ next: OrderRecord; extra?: TransactItem[]; result: T }>,
  read?: OrderRecord,
): Promise<{ before: OrderRecord; next: OrderRecord; result: T }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = attempt === 0 && read ? read : await findOrder(principal, id);
    const { next, extra, result } = await decide(before);
    if (next === before) return { before, next, result };
    const written = { ...next, version: before.version + 1 };
    const bytes = storedBytes(written);
    if (bytes > orderMaxBytes && bytes > storedBytes(before)) {
      throw new Conflict(`Order ${id} would take ${kb(bytes)} KB as stored, over the ${kb(orderMaxBytes)} KB an order may take; it holds ${before.shipments.length} shipments and ${before.timeline.length} timeline entries.`);
    }
    if (await replaceOrder(written, before, extra)) return { before, next: written, result };
  }
  throw new Conflict(`Order ${id} is changing under heavy concurrency; retry.`, {}, { 'Retry-After': '1' });
}

// ---------------------------------------------------------------------------------------------
// Create (web store) and import (marketplaces)

export interface NewOrderInput {
  order_number?: string;
  customer: { name: string; email: string; phone?: string | null };
  shipping_address: Address;
  billing_address?: Address | null;
  items: { sku: string; name: string; quantity: number; price: number; weight?: number | null }[];
  currency: string;
  shipping?: number;
  tax?: number;
  discount?: number;
  notes?: string | null;
  financial_status?: string;
}

export async function createWebOrder(principal: Principal, input: NewOrderInput, idempotencyKey?: string): Promise<OrderRecord> {
  const totals = computeTotals(input.items, input);
  if (totals.total < 0) throw new ValidationFailed({ discount: ['The discount is larger than the order.'] });
  const { result } = await once(principal, 'orders.create', idempotencyKey, input, () => insertWebOrder(principal, input, totals), {
    noun: 'order',
    idOf: (o) => String(o.id),
    load: (id) => getOrder(Number(id)),
  });
  return result;
}

async function insertWebOrder(principal: Principal, input: NewOrderInput, totals: OrderRecord['totals']): Promise<OrderRecord> {
  if (input.order_number && (await orderIdByNumber(principal.accountId, input.order_number)) !== undefined) {
    throw new Conflict(`Order number ${input.order_number} already exists.`, { field: 'order_number' });
  }
  const at = nowIso();
  const id = await nextId('order');
  const products = await productsFor(principal.accountId, input.items);
  const firstItem = await nextIds('orderItem', input.items.length);
  const financialStatus = input.financial_status ?? 'pending';
  const paid = financialStatus === 'paid';
  const timeline: TimelineEntry[] = [{ event: 'order_created', timestamp: at, description: 'Order received from the web store.' }];
  if (paid) timeline.push({ event: 'payment_received', timestamp: at, description: `Payment of ${totals.total} ${input.currency} received.` });
  const order: OrderRecord = {
    id,
    accountId: principal.accountId,
    orderNumber: input.order_number ?? `WEB-${String(id).padStart(6, '0')}`,
    channel: 'web',
    channelOrderId: null,
    channelUpdatedAt: null,
    status: paid ? 'processing' : 'pending',
    fulfillmentStatus: 'unfulfilled',
    financialStatus,
    customer: { name: input.customer.name, email: input.customer.email, phone: input.customer.phone ?? null },
    shippingAddress: input.shipping_address,
    billingAddress: input.billing_address ?? null,
    items: input.items.map((i, n) => ({
      id: firstItem + n,
      productId: products.get(i.sku)!.productId,
      sku: i.sku,
      name: i.name,
      quantity: i.quantity,
      price: i.price,
      weight: i.weight ?? null,
      quantityFulfilled: 0,
      channelItemId: null,
    })),
    currency: input.currency,
    totals,
    notes: input.notes ?? null,
    timeline,
    shipments: [],
    cancelledAt: null,
    cancelReason: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  const bytes = storedBytes(order);
  if (bytes > orderCreateMaxBytes) {
    throw new ValidationFailed({
      items: [`The order takes ${kb(bytes)} KB as stored, over the ${kb(orderCreateMaxBytes)} KB an order may take when created (its items, names, addresses and notes); send fewer items or shorter names.`],
    });
  }
  const outcome = await insertOrder(order, { number: true });
  if (outcome === 'number_taken') throw new Conflict(`Order number ${order.orderNumber} already exists.`, { field: 'order_number' });
  recordMetric('OrdersCreated', 1, { by: 'web' });
  await publishEvents(order.accountId, [{ type: 'order.created', data: createdData(order) }]);
  return order;
}

function createdData(o: OrderRecord) {
  return orderCreatedPayload({
    id: o.id,
    orderNumber: o.orderNumber,
    channel: o.channel,
    channelOrderId: o.channelOrderId,
    status: o.status,
    customer: o.customer,
    items: o.items.map((i) => ({ ...i, currency: o.currency })),
    totals: { ...o.totals, currency: o.currency },
    createdAt: o.createdAt,
  });
}

/** A marketplace that says shipped or delivered shipped the goods itself (its own logistics). */
const shippedByMarketplace = (s: OrderStatus) => s === 'shipped' || s === 'delivered';

/** A marketplace order as the service first records it, with the ids already allocated. */
export function importedOrder(
  accountId: number,
  channel: OrderChannel,
  m: MarketplaceOrder,
  ids: { id: number; firstItemId: number; productIds: Map<string, number>; at: string },
): OrderRecord {
  const timeline: TimelineEntry[] = [{ event: 'order_created', timestamp: m.createdAt, description: channel === 'web' ? 'Order received from the web store.' : `Order imported from ${channel} (${m.channelOrderId}).` }];
  if (m.financialStatus === 'paid') timeline.push({ event: 'payment_received', timestamp: m.createdAt, description: `Payment of ${m.totals.total} ${m.currency} received in ${channel}.` });
  const shipped = shippedByMarketplace(m.status);
  return {
    id: ids.id,
    accountId,
    orderNumber: m.orderNumber,
    channel,
    channelOrderId: channel === 'web' ? null : m.channelOrderId,
    channelUpdatedAt: channel === 'web' ? null : m.updatedAt,
    status: m.status,
    fulfillmentStatus: shipped ? 'fulfilled' : 'unfulfilled',
    financialStatus: m.financialStatus,
    customer: m.customer,
    shippingAddress: m.shippingAddress,
    billingAddress: m.billingAddress,
    items: m.items.map((i, n) => ({
      id: ids.firstItemId + n,
      productId: ids.productIds.get(i.sku)!,
      sku: i.sku,
      name: i.name,
      quantity: i.quantity,
      price: i.price,
      weight: i.weight,
      quantityFulfilled: shipped ? i.quantity : 0,
      channelItemId: i.channelItemId,
    })),
    currency: m.currency,
    totals: m.totals,
    notes: null,
    timeline,
    shipments: [],
    cancelledAt: m.status === 'cancelled' ? m.updatedAt : null,
    cancelReason: null,
    createdAt: m.createdAt,
    updatedAt: ids.at,
    version: 1,
  };
}

/** What an import did; `rejected`, why the order was not taken (it names the limit it passed). */
export type ImportOutcome = 'new' | 'updated' | 'unchanged' | { rejected: string };

const kb = (bytes: number) => Math.ceil(bytes / 1024);

/**
 * Upserts one marketplace order by (channel, channel order id): the uniqueness key is written in
 * the same transaction as a new order, so two syncs racing on one order make one. An order we
 * hold changes only when the marketplace's record is newer, and its status only moves forward.
 */
export async function importOrder(accountId: number, channel: SyncChannel, m: MarketplaceOrder): Promise<ImportOutcome> {
  const existing = await orderIdByChannel(accountId, channel, m.channelOrderId);
  if (existing === undefined) {
    const at = nowIso();
    const id = await nextId('order');
    const products = await productsFor(accountId, m.items);
    const firstItem = await nextIds('orderItem', m.items.length);
    const order = importedOrder(accountId, channel, m, { id, firstItemId: firstItem, productIds: new Map([...products].map(([sku, p]) => [sku, p.productId])), at });
    const bytes = storedBytes(order);
    if (bytes > orderCreateMaxBytes) return { rejected: `the order takes ${kb(bytes)} KB as stored, over the ${kb(orderCreateMaxBytes)} KB an order may take` };
    const outcome = await insertOrder(order, { channel: true });
    if (outcome === 'created') {
      recordMetric('OrdersCreated', 1, { by: channel });
      await publishEvents(accountId, [{ type: 'order.created', data: createdData(order) }]);
      return 'new';
    }
  }
  const id = existing ?? (await orderIdByChannel(accountId, channel, m.channelOrderId))!;
  const system: Principal = { accountId, tokenId: 0, tokenName: `${channel} sync`, email: null, role: 'partner', scopes: [] };
  const { before, next } = await change(system, id, async (o) => {
    if (o.channelUpdatedAt && o.channelUpdatedAt >= m.updatedAt) return { next: o, result: undefined };
    const at = nowIso();
    const status = syncedStatus(o, m.status);
    const timeline = withTimelineEntry(o.timeline, { event: 'synced', timestamp: at, description: `Updated from ${channel} (its record of ${m.updatedAt}).` });
    if (m.financialStatus === 'paid' && o.financialStatus !== 'paid') timeline.push({ event: 'payment_received', timestamp: at, description: `Payment received in ${channel}.` });
    if (status !== o.status) timeline.push(statusEntry(o.status, status, at, `${channel} says ${m.status}`));
    const unfulfilled = o.fulfillmentStatus === 'unfulfilled';
    const byMarketplace = shippedByMarketplace(status) && o.fulfillmentStatus !== 'fulfilled';
    if (byMarketplace) timeline.push({ event: 'fulfilled_by_marketplace', timestamp: at, description: `${channel} shipped the items left to ship.` });
    return {
      next: {
        ...o,
        ...(byMarketplace ? { items: o.items.map((i) => ({ ...i, quantityFulfilled: i.quantity })), fulfillmentStatus: 'fulfilled' as const } : {}),
        channelUpdatedAt: m.updatedAt,
        status,
        financialStatus: m.financialStatus,
        customer: m.customer,
        shippingAddress: unfulfilled ? m.shippingAddress : o.shippingAddress,
        billingAddress: m.billingAddress,
        totals: m.totals,
        cancelledAt: status === 'cancelled' && o.status !== 'cancelled' ? at : o.cancelledAt,
        timeline,
        updatedAt: at,
      },
      result: undefined,
    };
  });
  if (next === before) return 'unchanged';
  const changed: { type: string; data: unknown }[] = [{ type: 'order.updated', data: { ...orderSummary(next), previous_status: before.status } }];
  if (next.status === 'cancelled' && before.status !== 'cancelled') changed.push({ type: 'order.cancelled', data: { ...orderSummary(next), cancelled_at: next.cancelledAt, reason: `cancelled in ${channel}` } });
  await publishEvents(accountId, changed);
  return 'updated';
}

// ---------------------------------------------------------------------------------------------
// Update, cancel

export interface OrderPatch {
  status?: OrderStatus;
  notes?: string | null;
  shipping_address?: Address;
}

export async function updateOrder(principal: Principal, id: number, patch: OrderPatch): Promise<{ order: OrderRecord; changed: string[] }> {
  const { before, next, result } = await change(principal, id, async (o) => {
    const at = nowIso();
    const changed: string[] = [];
    let next = o;
    const timeline = [...o.timeline];
    if (patch.status !== undefined && patch.status !== o.status) {
      refuse(canSetStatus(o, patch.status));
      timeline.push(statusEntry(o.status, patch.status, at, `set by ${principal.tokenName}`));
      next = { ...next, status: patch.status };
      changed.push('status');
    }
    if (patch.shipping_address !== undefined) {
      refuse(canChangeAddress(o));
      timeline.push({ event: 'shipping_address_updated', timestamp: at, description: `Shipping address changed by ${principal.tokenName}.` });
      next = { ...next, shippingAddress: patch.shipping_address };
      changed.push('shipping_address');
    }
    if (patch.notes !== undefined && patch.notes !== o.notes) {
      timeline.push({ event: 'notes_updated', timestamp: at, description: `Internal notes changed by ${principal.tokenName}.` });
      next = { ...next, notes: patch.notes };
      changed.push('notes');
    }
    if (!changed.length) return { next: o, result: changed };
    return { next: { ...next, timeline, updatedAt: at }, result: changed };
  });
  if (result.includes('status')) await publishEvents(next.accountId, [{ type: 'order.updated', data: { ...orderSummary(next), previous_status: before.status } }]);
  return { order: next, changed: result };
}

export async function cancelOrder(principal: Principal, id: number, input: { reason?: string; notify_customer?: boolean }): Promise<{ order: OrderRecord; already: boolean }> {
  const { before, next } = await change(principal, id, async (o) => {
    if (o.status === 'cancelled') return { next: o, result: undefined };
    refuse(canCancel(o));
    const at = nowIso();
    const timeline = [...o.timeline, statusEntry(o.status, 'cancelled', at, input.reason ? `reason: ${input.reason}` : `by ${principal.tokenName}`)];
    if (input.notify_customer ?? true) timeline.push(notifiedEntry(o, at, 'cancellation'));
    return { next: { ...o, status: 'cancelled' as const, cancelledAt: at, cancelReason: input.reason ?? null, timeline, updatedAt: at }, result: undefined };
  });
  const already = next === before;
  if (!already) await publishEvents(next.accountId, [{ type: 'order.cancelled', data: { ...orderSummary(next), cancelled_at: next.cancelledAt, reason: next.cancelReason } }]);
  return { order: next, already };
}

/**
 * The service sends no e-mail itself: asking to notify the customer records it on the timeline,
 * and the event a notifier subscribes to (shipment.created, order.cancelled) carries what it needs.
 */
export function notifiedEntry(o: OrderRecord, at: string, what: string): TimelineEntry {
  return { event: 'customer_notified', timestamp: at, description: `Customer notification of the ${what} requested for ${o.customer.email || 'the customer'}.` };
}

export type { OrderChannel };
