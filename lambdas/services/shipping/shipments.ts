/**
 * Shipments of orders (spec 4.1 ship, fulfill, shipments; 2.2): a shipment with a tracking number
 * from the carrier and a 4x6 PDF label, one made outside the service, the label itself, and the
 * tracking-update entry point. Every write goes through the orders' versioned `change`, with the
 * shipment's pointers and the stock in the same transaction.
 */
import type { Principal } from '#core/auth/principal';
import { Conflict, NotFound, ValidationFailed } from '#core/errors';
import {
  canMoveShipment,
  checkLines,
  remainingLines,
  statusAfterTracking,
  statusEntry,
  withShipment,
  type OrderRecord,
  type ShipLine,
  type ShipmentRecord,
  type ShipmentStatus,
} from '#core/orders/model';
import type { CarrierShipmentRequest } from '#core/shipping/carrier';
import { lowStockPayload, shipmentCreatedPayload } from '#core/webhooks/payloads';
import { orderSummary } from '#core/orders/views';
import { carrierFor, carrierNames } from '#infra/carriers';
import { renderLabel } from '#infra/label-pdf';
import { blobs } from '#infra/blobs';
import { nowIso } from '#infra/clock';
import { nextId } from '#infra/entities/counters';
import { getOrder, shipmentPointer, shipmentPointerWrites as shipmentPointers, trackingPointer, trackingWatch, trackingWatchDone } from '#infra/entities/orders';
import { getProducts, markLowStock, stockDecrements, type ProductRecord } from '#infra/entities/products';
import { getWarehouse, listWarehouses, type WarehouseRecord } from '#infra/entities/warehouses';
import { logger } from '#shared/logger';
import { once } from '../idempotency';
import { change, findOrder, notifiedEntry, refuse } from '../orders/orders';
import { publishEvents } from '../publish';
import { recordMetric } from '#shared/metrics';

// ---------------------------------------------------------------------------------------------

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
  if (!carrier) throw new ValidationFailed({ carrier: [`No carrier adapter for "${input.carrier}" (${carrierNames.join(', ')}); use fulfill to record a shipment made outside the service.`] });
  if (!carrier.services.includes(input.service)) throw new ValidationFailed({ service: [`${input.carrier} offers ${carrier.services.join(', ')}.`] });
  const lines = input.packages.flatMap((p) => p.items.map((i) => ({ orderItemId: i.order_item_id, quantity: i.quantity })));
  const path = pathOfPackageLine(input);
  const { result } = await once(principal, `orders.ship.${id}`, idempotencyKey, input, async () => {
    const order = await findOrder(principal, id);
    refuse(checkLines(order, lines, path));
    const warehouse = await shipFrom(principal.accountId, input.warehouse_id);
    const shipmentId = await nextId('shipment');
    const at = nowIso();
    const request = carrierRequest(order, lines, input, warehouse, shipmentId, principal.accountId, at);
    const made = await carrier.createShipment(request);
    const { trackingNumber } = made;
    const estimatedDelivery = made.estimatedDelivery;
    const pdf =
      made.label ??
      (await renderLabel({
        trackingNumber,
        carrier: carrier.name,
        service: input.service,
        orderNumber: order.orderNumber,
        shipmentId,
        createdAt: at,
        sender: warehouse,
        recipient: { ...order.shippingAddress },
        packages: input.packages.map((p) => ({ weight: p.weight, length: p.length, width: p.width, height: p.height })),
      }));
    // A carrier's label that does not land on a shipment is voided, so it is never billed.
    const voidLabel = () =>
      carrier.voidShipment && made.label
        ? carrier.voidShipment({ accountId: principal.accountId, trackingNumber, reference: made.reference, destinationCountry: order.shippingAddress.country }).catch((err: unknown) => {
            logger.error('could not void the label of a shipment that did not land', { carrier: carrier.name, trackingNumber, error: err as Error });
          })
        : Promise.resolve();
    await blobs()
      .put(labelKey(principal.accountId, shipmentId), pdf, 'application/pdf')
      .catch((err: unknown) => voidLabel().then(() => Promise.reject(err)));
    const notified = input.notify_customer ?? true;
    // A shipment that does not land (the order changed under it) leaves no label behind.
    const removeLabel = (err: unknown) =>
      Promise.all([blobs().delete(labelKey(principal.accountId, shipmentId)).catch(() => undefined), voidLabel()]).then(() => Promise.reject(err));
    return ship(principal, order, lines, path, {
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
      ...(made.cost ? { cost: made.cost } : {}),
      ...(made.reference ? { carrierReference: made.reference } : {}),
    }, notified).catch(removeLabel);
  }, { noun: 'shipment', idOf: (r) => `${r.order.id}:${r.shipment.id}`, load: (ref) => loadShipResult(principal, ref) });
  return result;
}

/**
 * What a carrier is asked for: the warehouse as shipper (its country is the goods' origin), the
 * order's shipping address as recipient (the phone of the address, else the customer's), the
 * packages in kg and cm, and the customs lines of the items shipped (the item's weight, or the
 * packages' weight shared by the units when the item has none).
 */
function carrierRequest(order: OrderRecord, lines: ShipLine[], input: ShipInput, warehouse: WarehouseRecord, shipmentId: number, accountId: number, at: string): CarrierShipmentRequest {
  const byId = new Map(order.items.map((i) => [i.id, i]));
  const units = lines.reduce((a, l) => a + l.quantity, 0);
  const totalKg = input.packages.reduce((a, p) => a + p.weight, 0);
  const a = order.shippingAddress;
  return {
    shipmentId,
    accountId,
    service: input.service,
    orderNumber: order.orderNumber,
    shipDate: at.slice(0, 10),
    shipper: { name: warehouse.name, phone: warehouse.phone ?? null, email: null, address1: warehouse.address1, address2: null, city: warehouse.city, state: warehouse.state, postal_code: warehouse.postal_code, country: warehouse.country.toUpperCase() },
    recipient: { name: a.name, phone: a.phone || order.customer.phone || null, email: order.customer.email || null, address1: a.address1, address2: a.address2 ?? null, city: a.city, state: a.state, postal_code: a.postal_code, country: a.country.toUpperCase() },
    packages: input.packages.map((p) => ({ weight: p.weight, length: p.length, width: p.width, height: p.height })),
    currency: order.currency,
    customs:
      warehouse.country.toUpperCase() === a.country.toUpperCase()
        ? []
        : lines.map((l) => {
            const item = byId.get(l.orderItemId)!;
            return { description: item.name, sku: item.sku, quantity: l.quantity, unitValue: item.price, unitWeight: item.weight ?? totalKg / units, hsCode: null, originCountry: warehouse.country.toUpperCase() };
          }),
  };
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
    return ship(principal, order, lines, path, {
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
async function ship(principal: Principal, read: OrderRecord, lines: ShipLine[], path: (i: number, f: string) => string, draft: ShipmentRecord, notify: boolean): Promise<ShipResult> {
  const { next, result } = await change(principal, read.id, async (o) => {
    refuse(checkLines(o, lines, path));
    const bySku = new Map(o.items.map((i) => [i.id, i.sku]));
    const shipment: ShipmentRecord = { ...draft, items: lines.map((l) => ({ orderItemId: l.orderItemId, sku: bySku.get(l.orderItemId)!, quantity: l.quantity })) };
    const at = nowIso();
    const what = shipment.source === 'label' ? `Shipment ${shipment.id} created with ${shipment.carrier} ${shipment.service}, tracking ${shipment.trackingNumber}.` : `Fulfilled outside the service (shipment ${shipment.id}): ${shipment.carrier} tracking ${shipment.trackingNumber}.`;
    let next = withShipment(o, shipment, at, what);
    if (notify) next = { ...next, timeline: [...next.timeline, notifiedEntry(o, at, `shipment ${shipment.id}`)] };
    const tracked: Map<string, ProductRecord> = shipment.source === 'label' ? await getProducts(o.accountId, shipment.items.map((i) => i.sku)) : new Map();
    const stock = shipment.source === 'label' ? stockDecrements(o.accountId, shipment.items, new Map([...tracked].filter(([, p]) => p.warehouseId === undefined || p.warehouseId === shipment.warehouseId))) : [];
    // A shipment of an external carrier is followed by the scheduled tracking poll.
    const watch = shipment.source === 'label' && carrierFor(shipment.carrier)?.track ? [trackingWatch({ shipmentId: shipment.id, orderId: o.id, accountId: o.accountId, carrier: shipment.carrier, trackingNumber: shipment.trackingNumber })] : [];
    return {
      next,
      extra: [...shipmentPointers({ id: shipment.id, trackingNumber: shipment.trackingNumber, accountId: o.accountId, orderId: o.id }), ...watch, ...stock],
      result: { shipment, stockSkus: stock.length ? shipment.items.map((i) => i.sku) : [] },
    };
  }, read);
  const evts: { type: string; data: unknown }[] = [];
  const s = result.shipment;
  recordMetric('OrdersShipped', 1, { by: s.source });
  if (s.source === 'label') {
    evts.push({
      type: 'shipment.created',
      data: shipmentCreatedPayload({ shipmentId: s.id, orderId: next.id, carrier: s.carrier, service: s.service, trackingNumber: s.trackingNumber, labelUrl: s.labelUrl!, estimatedDelivery: s.estimatedDelivery, createdAt: s.createdAt }),
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
  await publishEvents(next.accountId, evts);
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
  return moveShipment(principal, pointer, input.status, input.occurred_at);
}

/**
 * A shipment's new status, by the tracking-updates entry point or the tracking poll: the order,
 * its timeline and the end of the poll's watch (a final status) in one transaction; then
 * shipment.delivered once, and order.updated when the order's status moved.
 */
export async function moveShipment(principal: Principal, pointer: { orderId: number; shipmentId: number }, status: ShipmentStatus, occurredAt?: string): Promise<{ order: OrderRecord; shipment: ShipmentRecord; changed: boolean }> {
  const { before, next, result } = await change(principal, pointer.orderId, async (o) => {
    const current = o.shipments.find((s) => s.id === pointer.shipmentId)!;
    if (current.voidedAt) throw new Conflict(`Shipment ${current.id}'s label was voided; it does not move any more.`);
    if (current.status === status) return { next: o, result: current };
    if (!canMoveShipment(current.status, status)) throw new Conflict(`Shipment ${current.id} is ${current.status}; it cannot become ${status}.`);
    const at = nowIso();
    const when = occurredAt ?? at;
    const shipment: ShipmentRecord = { ...current, status, deliveredAt: status === 'delivered' ? when : current.deliveredAt };
    const shipments = o.shipments.map((s) => (s.id === shipment.id ? shipment : s));
    const timeline = [...o.timeline, { event: `shipment_${status}`, timestamp: at, description: `Shipment ${shipment.id} (${shipment.trackingNumber}) is ${status.replace(/_/g, ' ')}.` }];
    let next: OrderRecord = { ...o, shipments, timeline, updatedAt: at };
    const orderStatus = statusAfterTracking(next);
    if (orderStatus !== next.status) next = { ...next, status: orderStatus, timeline: [...timeline, statusEntry(o.status, orderStatus, at, 'every shipment delivered')] };
    const final = status === 'delivered' || status === 'returned';
    return { next, extra: final ? [trackingWatchDone(shipment.id)] : [], result: shipment };
  });
  const changed = next !== before;
  if (changed) {
    const evts: { type: string; data: unknown }[] = [];
    if (result.status === 'delivered') {
      evts.push({ type: 'shipment.delivered', data: { shipment_id: result.id, order_id: next.id, carrier: result.carrier, tracking_number: result.trackingNumber, delivered_at: result.deliveredAt } });
    }
    if (next.status !== before.status) evts.push({ type: 'order.updated', data: { ...orderSummary(next), previous_status: before.status } });
    await publishEvents(next.accountId, evts);
  }
  return { order: next, shipment: result, changed };
}
