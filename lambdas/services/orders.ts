/**
 * The order use cases of spec 4.1: create (web store), list, read, update, ship, fulfill, cancel,
 * the tracking-update entry point, and the upsert the marketplace sync uses. The rules are in
 * core/orders/model.ts; here they meet storage, labels, stock and events.
 *
 * Every change reads the order, decides, and writes it back conditional on the version it read;
 * a lost race reads again and decides again (a retried request never ships twice by accident:
 * ship and fulfill take an Idempotency-Key too).
 */
import type { Principal } from '../core/auth/principal';
import { Conflict, NotFound, ValidationFailed } from '../core/errors';
import {
  canCancel,
  canChangeAddress,
  canMoveShipment,
  canSetStatus,
  checkLines,
  computeTotals,
  remainingLines,
  statusAfterTracking,
  statusEntry,
  syncedStatus,
  withShipment,
  type Address,
  type OrderChannel,
  type OrderRecord,
  type OrderStatus,
  type ShipLine,
  type ShipmentRecord,
  type ShipmentStatus,
  type TimelineEntry,
  type Verdict,
} from '../core/orders/model';
import type { MarketplaceOrder, SyncChannel } from '../core/orders/marketplace';
import { orderCreatedPayload, lowStockPayload, shipmentCreatedPayload } from '../core/webhooks/payloads';
import { orderSummary } from '../core/orders/views';
import { carrierFor } from '../core/shipping/carrier';
import { renderLabel } from '../infra/label-pdf';
import { blobs } from '../infra/blobs';
import { nowIso } from '../infra/clock';
import { domainEvent, events } from '../infra/events';
import { nextId, nextIds } from '../infra/entities/counters';
import { getOrder, insertOrder, orderIdByChannel, orderIdByNumber, replaceOrder, shipmentPointer, shipmentPointers, trackingPointer, type TransactItem } from '../infra/entities/orders';
import { getProducts, markLowStock, productsFor, stockDecrements, type ProductRecord } from '../infra/entities/products';
import { getWarehouse, listWarehouses } from '../infra/entities/warehouses';
import { logger } from '../http/kit/logger';
import { once } from './once';

/** Publishing must not undo a saved write: a failure is logged for the operator. */
async function publish(accountId: number, list: { type: string; data: unknown }[]) {
  if (!list.length) return;
  try {
    await events().publish(list.map((e) => domainEvent(e.type, accountId, e.data)));
  } catch (err) {
    logger.error('event not published', { types: list.map((e) => e.type), error: err as Error });
  }
}

function refuse(v: Verdict): void {
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
 */
async function change<T>(
  principal: Principal,
  id: number,
  decide: (order: OrderRecord) => Promise<{ next: OrderRecord; extra?: TransactItem[]; result: T }>,
): Promise<{ before: OrderRecord; next: OrderRecord; result: T }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await findOrder(principal, id);
    const { next, extra, result } = await decide(before);
    if (next === before) return { before, next, result };
    if (await replaceOrder({ ...next, version: before.version + 1 }, before.version, extra)) return { before, next: { ...next, version: before.version + 1 }, result };
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
  const outcome = await insertOrder(order, { number: true });
  if (outcome === 'number_taken') throw new Conflict(`Order number ${order.orderNumber} already exists.`, { field: 'order_number' });
  await publish(order.accountId, [{ type: 'order.created', data: createdData(order) }]);
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

export type ImportOutcome = 'new' | 'updated' | 'unchanged';

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
    const outcome = await insertOrder(order, { channel: true });
    if (outcome === 'created') {
      await publish(accountId, [{ type: 'order.created', data: createdData(order) }]);
      return 'new';
    }
  }
  const id = existing ?? (await orderIdByChannel(accountId, channel, m.channelOrderId))!;
  const system: Principal = { accountId, tokenId: 0, tokenName: `${channel} sync`, email: null, role: 'partner', scopes: [] };
  const { before, next } = await change(system, id, async (o) => {
    if (o.channelUpdatedAt && o.channelUpdatedAt >= m.updatedAt) return { next: o, result: undefined };
    const at = nowIso();
    const status = syncedStatus(o, m.status);
    const timeline = [...o.timeline, { event: 'synced', timestamp: at, description: `Updated from ${channel} (its record of ${m.updatedAt}).` }];
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
  await publish(accountId, changed);
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
  if (result.includes('status')) await publish(next.accountId, [{ type: 'order.updated', data: { ...orderSummary(next), previous_status: before.status } }]);
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
  if (!already) await publish(next.accountId, [{ type: 'order.cancelled', data: { ...orderSummary(next), cancelled_at: next.cancelledAt, reason: next.cancelReason } }]);
  return { order: next, already };
}

/**
 * The service sends no e-mail itself: asking to notify the customer records it on the timeline,
 * and the event a notifier subscribes to (shipment.created, order.cancelled) carries what it needs.
 */
function notifiedEntry(o: OrderRecord, at: string, what: string): TimelineEntry {
  return { event: 'customer_notified', timestamp: at, description: `Customer notification of the ${what} requested for ${o.customer.email || 'the customer'}.` };
}

// ---------------------------------------------------------------------------------------------
// Ship and fulfill

export interface ShipInput {
  carrier: string;
  service: string;
  packages: { weight: number; length: number; width: number; height: number; items: { order_item_id: number; quantity: number }[] }[];
  warehouse_id?: number;
  notify_customer?: boolean;
}

export interface ShipResult {
  order: OrderRecord;
  shipment: ShipmentRecord;
  notified: boolean;
}

const labelKey = (accountId: number, shipmentId: number) => `labels/${accountId}/${shipmentId}.pdf`;

/** Creates the shipment: tracking number from the carrier, a 4x6 PDF label in storage, stock taken off. */
export async function shipOrder(principal: Principal, id: number, input: ShipInput, labelUrlOf: (shipmentId: number) => string, idempotencyKey?: string): Promise<ShipResult> {
  const carrier = carrierFor(input.carrier);
  if (!carrier) throw new ValidationFailed({ carrier: [`No carrier adapter for "${input.carrier}"; use fulfill to record a shipment made outside the service.`] });
  if (!carrier.services.includes(input.service)) throw new ValidationFailed({ service: [`${input.carrier} offers ${carrier.services.join(', ')}.`] });
  const lines = input.packages.flatMap((p) => p.items.map((i) => ({ orderItemId: i.order_item_id, quantity: i.quantity })));
  const path = pathOfPackageLine(input);
  const { result } = await once(principal, `orders.ship.${id}`, idempotencyKey, input, async () => {
    const order = await findOrder(principal, id);
    refuse(checkLines(order, lines, path));
    const warehouse = await shipFrom(principal.accountId, input.warehouse_id);
    const shipmentId = await nextId('shipment');
    const at = nowIso();
    const { trackingNumber, estimatedDelivery } = await carrier.issueTracking({ shipmentId, service: input.service, accountId: principal.accountId });
    const pdf = await renderLabel({
      trackingNumber,
      carrier: carrier.name,
      service: input.service,
      orderNumber: order.orderNumber,
      shipmentId,
      createdAt: at,
      sender: { name: warehouse.name, address1: warehouse.address1, city: warehouse.city, state: warehouse.state, postal_code: warehouse.postal_code, country: warehouse.country },
      recipient: { ...order.shippingAddress },
      packages: input.packages.map((p) => ({ weight: p.weight, length: p.length, width: p.width, height: p.height })),
    });
    await blobs().put(labelKey(principal.accountId, shipmentId), pdf, 'application/pdf');
    const notified = input.notify_customer ?? true;
    // A shipment that does not land (the order changed under it) leaves no label behind.
    const removeLabel = (err: unknown) => blobs().delete(labelKey(principal.accountId, shipmentId)).then(() => Promise.reject(err), () => Promise.reject(err));
    return ship(principal, id, lines, path, {
      id: shipmentId,
      orderId: id,
      trackingNumber,
      carrier: input.carrier,
      service: input.service,
      status: 'in_transit',
      items: [],
      source: 'label',
      labelKey: labelKey(principal.accountId, shipmentId),
      labelUrl: labelUrlOf(shipmentId),
      warehouseId: warehouse.id,
      packages: input.packages.map((p) => ({ weight: p.weight, length: p.length, width: p.width, height: p.height })),
      estimatedDelivery,
      createdAt: at,
      deliveredAt: null,
    }, notified).catch(removeLabel);
  }, { noun: 'shipment', idOf: (r) => `${r.order.id}:${r.shipment.id}`, load: (ref) => loadShipResult(principal, ref) });
  return result;
}

async function loadShipResult(principal: Principal, ref: string): Promise<ShipResult | undefined> {
  const [orderId, shipmentId] = ref.split(':').map(Number);
  const order = await getOrder(orderId);
  const shipment = order?.shipments.find((s) => s.id === shipmentId);
  if (!order || !shipment || order.accountId !== principal.accountId) return undefined;
  return { order, shipment, notified: order.timeline.some((t) => t.event === 'customer_notified' && t.description.includes(`shipment ${shipmentId}`)) };
}

function pathOfPackageLine(input: ShipInput) {
  const at: [number, number][] = input.packages.flatMap((p, pi) => p.items.map((_, ii) => [pi, ii] as [number, number]));
  return (i: number, f: string) => (at[i] ? `packages.${at[i][0]}.items.${at[i][1]}.${f}` : `packages.0.items`);
}

/** Where a shipment leaves from: the warehouse named, or the account's first. */
async function shipFrom(accountId: number, warehouseId?: number) {
  if (warehouseId !== undefined) {
    const w = await getWarehouse(accountId, warehouseId);
    if (!w) throw new ValidationFailed({ warehouse_id: [`No warehouse ${warehouseId}; add it with PUT /v1/warehouses/${warehouseId}.`] });
    return w;
  }
  const [first] = await listWarehouses(accountId);
  if (!first) throw new ValidationFailed({ warehouse_id: ['The account has no ship-from warehouse yet; add one with PUT /v1/warehouses/{id}.'] });
  return first;
}

/** Records a shipment made outside the service, with its tracking number. */
export async function fulfillOrder(
  principal: Principal,
  id: number,
  input: { tracking_number: string; carrier: string; items?: { order_item_id: number; quantity: number }[]; notify_customer?: boolean },
  idempotencyKey?: string,
): Promise<ShipResult> {
  const { result } = await once(principal, `orders.fulfill.${id}`, idempotencyKey, input, async () => {
    const order = await findOrder(principal, id);
    const lines = input.items ? input.items.map((i) => ({ orderItemId: i.order_item_id, quantity: i.quantity })) : remainingLines(order);
    const path = (i: number, f: string) => (input.items ? `items.${i}.${f}` : 'items');
    refuse(checkLines(order, lines, path));
    const shipmentId = await nextId('shipment');
    return ship(principal, id, lines, path, {
      id: shipmentId,
      orderId: id,
      trackingNumber: input.tracking_number,
      carrier: input.carrier,
      service: 'external',
      status: 'in_transit',
      items: [],
      source: 'external',
      labelKey: null,
      labelUrl: null,
      warehouseId: null,
      packages: [],
      estimatedDelivery: null,
      createdAt: nowIso(),
      deliveredAt: null,
    }, input.notify_customer ?? true);
  }, { noun: 'shipment', idOf: (r) => `${r.order.id}:${r.shipment.id}`, load: (ref) => loadShipResult(principal, ref) });
  return result;
}

/** The write both ship and fulfill end with: the order, the shipment's pointers and the stock, in one transaction. */
async function ship(principal: Principal, id: number, lines: ShipLine[], path: (i: number, f: string) => string, draft: ShipmentRecord, notify: boolean): Promise<ShipResult> {
  const { next, result } = await change(principal, id, async (o) => {
    refuse(checkLines(o, lines, path));
    const bySku = new Map(o.items.map((i) => [i.id, i.sku]));
    const shipment: ShipmentRecord = { ...draft, items: lines.map((l) => ({ orderItemId: l.orderItemId, sku: bySku.get(l.orderItemId)!, quantity: l.quantity })) };
    const at = nowIso();
    const what = shipment.source === 'label' ? `Shipment ${shipment.id} created with ${shipment.carrier} ${shipment.service}, tracking ${shipment.trackingNumber}.` : `Fulfilled outside the service (shipment ${shipment.id}): ${shipment.carrier} tracking ${shipment.trackingNumber}.`;
    let next = withShipment(o, shipment, at, what);
    if (notify) next = { ...next, timeline: [...next.timeline, notifiedEntry(o, at, `shipment ${shipment.id}`)] };
    const tracked: Map<string, ProductRecord> = shipment.source === 'label' ? await getProducts(o.accountId, shipment.items.map((i) => i.sku)) : new Map();
    const stock = shipment.source === 'label' ? stockDecrements(o.accountId, shipment.items, new Map([...tracked].filter(([, p]) => p.warehouseId === undefined || p.warehouseId === shipment.warehouseId))) : [];
    return { next, extra: [...shipmentPointers({ id: shipment.id, trackingNumber: shipment.trackingNumber, accountId: o.accountId, orderId: o.id }), ...stock], result: { shipment, stockSkus: stock.length ? shipment.items.map((i) => i.sku) : [] } };
  });
  const evts: { type: string; data: unknown }[] = [];
  const s = result.shipment;
  if (s.source === 'label') {
    evts.push({
      type: 'shipment.created',
      data: shipmentCreatedPayload({ shipmentId: s.id, orderId: next.id, carrier: s.carrier, service: s.service, trackingNumber: s.trackingNumber, labelUrl: s.labelUrl!, estimatedDelivery: s.estimatedDelivery!, createdAt: s.createdAt }),
    });
  }
  evts.push({ type: 'order.updated', data: { ...orderSummary(next), fulfillment_status: next.fulfillmentStatus, shipment_id: s.id } });
  if (result.stockSkus.length) {
    // The shipment has landed: a failure from here on is logged, never answered as a failed ship.
    const fallen = await markLowStock(next.accountId, result.stockSkus).catch((err) => {
      logger.error('low-stock check failed', { orderId: next.id, error: err as Error });
      return [];
    });
    for (const p of fallen) {
      const warehouse = p.warehouseId !== undefined ? await getWarehouse(next.accountId, p.warehouseId).catch(() => undefined) : undefined;
      evts.push({
        type: 'inventory.low_stock',
        data: lowStockPayload({ productId: p.productId, sku: p.sku, name: p.name, currentStock: p.stock!, threshold: p.threshold!, warehouseId: p.warehouseId ?? 0, warehouseName: warehouse?.name ?? p.warehouseName ?? '' }),
      });
    }
  }
  await publish(next.accountId, evts);
  return { order: next, shipment: s, notified: notify };
}

// ---------------------------------------------------------------------------------------------
// Labels and tracking updates

export async function shipmentLabel(principal: Principal, shipmentId: number): Promise<{ pdf: Buffer; fileName: string }> {
  const pointer = await shipmentPointer(shipmentId);
  if (!pointer || pointer.accountId !== principal.accountId) throw new NotFound(`Shipment ${shipmentId} not found.`);
  const order = await getOrder(pointer.orderId);
  const shipment = order?.shipments.find((s) => s.id === shipmentId);
  if (!shipment) throw new NotFound(`Shipment ${shipmentId} not found.`);
  if (!shipment.labelKey) throw new NotFound(`Shipment ${shipmentId} was made outside the service and has no label.`);
  const pdf = await blobs().get(shipment.labelKey);
  if (!pdf) throw new NotFound(`The label of shipment ${shipmentId} is missing.`);
  return { pdf, fileName: `label-${shipment.trackingNumber}.pdf` };
}

/**
 * The tracking-update entry point: a carrier (or the merchant) reports a shipment's new status by
 * tracking number. `delivered` stamps the shipment, fires shipment.delivered once, and makes the
 * order delivered when it is fulfilled and every shipment is delivered.
 */
export async function trackingUpdate(principal: Principal, input: { tracking_number: string; status: ShipmentStatus; occurred_at?: string }): Promise<{ order: OrderRecord; shipment: ShipmentRecord; changed: boolean }> {
  const pointer = await trackingPointer(input.tracking_number);
  if (!pointer || pointer.accountId !== principal.accountId) throw new NotFound(`No shipment with tracking number ${input.tracking_number}.`);
  const { before, next, result } = await change(principal, pointer.orderId, async (o) => {
    const current = o.shipments.find((s) => s.id === pointer.shipmentId)!;
    if (current.status === input.status) return { next: o, result: current };
    if (!canMoveShipment(current.status, input.status)) throw new Conflict(`Shipment ${current.id} is ${current.status}; it cannot become ${input.status}.`);
    const at = nowIso();
    const when = input.occurred_at ?? at;
    const shipment: ShipmentRecord = { ...current, status: input.status, deliveredAt: input.status === 'delivered' ? when : current.deliveredAt };
    const shipments = o.shipments.map((s) => (s.id === shipment.id ? shipment : s));
    const timeline = [...o.timeline, { event: `shipment_${input.status}`, timestamp: at, description: `Shipment ${shipment.id} (${shipment.trackingNumber}) is ${input.status.replace(/_/g, ' ')}.` }];
    let next: OrderRecord = { ...o, shipments, timeline, updatedAt: at };
    const status = statusAfterTracking(next);
    if (status !== next.status) next = { ...next, status, timeline: [...timeline, statusEntry(o.status, status, at, 'every shipment delivered')] };
    return { next, result: shipment };
  });
  const changed = next !== before;
  if (changed) {
    const evts: { type: string; data: unknown }[] = [];
    if (result.status === 'delivered') {
      evts.push({ type: 'shipment.delivered', data: { shipment_id: result.id, order_id: next.id, carrier: result.carrier, tracking_number: result.trackingNumber, delivered_at: result.deliveredAt } });
    }
    if (next.status !== before.status) evts.push({ type: 'order.updated', data: { ...orderSummary(next), previous_status: before.status } });
    await publish(next.accountId, evts);
  }
  return { order: next, shipment: result, changed };
}

export type { OrderChannel };
