import type { Principal } from '#core/auth/principal';
import { Conflict, ServiceError, ValidationFailed } from '#core/errors';
import { statusEntry, type OrderRecord, type ShipmentRecord } from '#core/orders/model';
import { orderSummary } from '#core/orders/views';
import { carrierFor } from '#infra/carriers';
import { nowIso } from '#infra/clock';
import { trackingWatchDone } from '#infra/entities/orders';
import { getProducts, markLowStock, stockDecrements } from '#infra/entities/products';
import { logger } from '#shared/logger';
import { cancelOrder, change, findOrder, notifiedEntry } from '../orders/orders';
import { publishEvents } from '../publish';

/**
 * Cancel (spec 4.1, issue 18 item 5). An unfulfilled order is cancelled as before. An order whose
 * every shipment is an unused label of a carrier that voids labels (`voidable`) can be cancelled
 * too: each label is voided with its carrier first, then, in one transaction, the order is cancelled, its
 * shipments marked voided, its items unshipped (fulfillment back to unfulfilled), the stock they
 * took put back and the tracking poll's watch ended. A carrier that refuses a void (the label is
 * used) makes the cancel a 409 naming the shipment; the labels voided before it stay recorded as
 * voided, so a retried cancel does not ask again.
 */
export async function cancelVoidingLabels(principal: Principal, id: number, input: { reason?: string; notify_customer?: boolean }): Promise<{ order: OrderRecord; already: boolean; voided: number[] }> {
  const read = await findOrder(principal, id);
  if (read.status === 'cancelled' || read.fulfillmentStatus === 'unfulfilled' || read.shipments.length === 0) return { ...(await cancelOrder(principal, id, input)), voided: [] };
  const blocking = read.shipments.find((s) => !voidable(s));
  if (blocking) {
    throw new Conflict(
      `Only unfulfilled orders, or orders whose every shipment is an unused fedex, ups or usps label, can be cancelled; shipment ${blocking.id} is ${blocking.source === 'external' ? 'recorded from outside the service' : blocking.status !== 'in_transit' ? blocking.status : `a ${blocking.carrier} label, which cannot be voided`}.`,
    );
  }
  const voidedNow: { id: number; at: string }[] = [];
  let refusal: ServiceError | undefined;
  for (const s of read.shipments) {
    if (s.voidedAt) continue;
    const carrier = carrierFor(s.carrier)!;
    try {
      if (carrier.voidShipment) {
        await carrier.voidShipment({ accountId: read.accountId, trackingNumber: s.trackingNumber, reference: s.carrierReference ?? null, destinationCountry: read.shippingAddress.country });
      }
      voidedNow.push({ id: s.id, at: nowIso() });
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      refusal = err;
      logger.warn('cancel: a carrier refused to void a label', { orderId: id, shipmentId: s.id, carrier: s.carrier, error: err.message });
      break;
    }
  }
  const voidedAt = new Map(voidedNow.map((v) => [v.id, v.at]));
  const stamp = (o: OrderRecord) => o.shipments.map((s) => (voidedAt.has(s.id) && !s.voidedAt ? { ...s, voidedAt: voidedAt.get(s.id)! } : s));
  if (refusal) {
    if (voidedNow.length) await change(principal, id, async (o) => ({ next: { ...o, shipments: stamp(o), updatedAt: nowIso() }, extra: voidedNow.map((v) => trackingWatchDone(v.id)), result: undefined }));
    const said = refusal instanceof ValidationFailed ? Object.values(refusal.errors).flat().join(' ') : refusal.message;
    throw new Conflict(`The order cannot be cancelled: a label could not be voided. ${said}`, { voided_shipments: voidedNow.map((v) => v.id) });
  }
  const { before, next, result } = await change(principal, id, async (o) => {
    if (o.status === 'cancelled') return { next: o, result: { stockSkus: [] as string[] } };
    if (o.shipments.some((s) => !voidable(s))) throw new Conflict(`Order ${id} changed while its labels were being voided; it can no longer be cancelled.`);
    const at = nowIso();
    const shipments = stamp(o);
    if (shipments.some((s) => !s.voidedAt)) throw new Conflict(`Order ${id} has a new shipment; cancel again.`);
    // The goods never left: the stock the labels took goes back where it came from.
    const lines = shipments.flatMap((s) => s.items.map((i) => ({ sku: i.sku, quantity: -i.quantity, warehouseId: s.warehouseId })));
    const tracked = await getProducts(o.accountId, [...new Set(lines.map((l) => l.sku))]);
    const back = lines.filter((l) => {
      const p = tracked.get(l.sku);
      return p && (p.warehouseId === undefined || p.warehouseId === l.warehouseId);
    });
    const stock = stockDecrements(o.accountId, back, tracked);
    const timeline = [
      ...o.timeline,
      ...shipments.map((s) => ({ event: 'shipment_voided', timestamp: at, description: `Shipment ${s.id}: the ${s.carrier} label ${s.trackingNumber} was voided.` })),
      statusEntry(o.status, 'cancelled', at, input.reason ? `reason: ${input.reason}` : `by ${principal.tokenName}`),
    ];
    if (input.notify_customer ?? true) timeline.push(notifiedEntry(o, at, 'cancellation'));
    const items = o.items.map((i) => ({ ...i, quantityFulfilled: 0 }));
    return {
      next: { ...o, items, shipments, fulfillmentStatus: 'unfulfilled' as const, status: 'cancelled' as const, cancelledAt: at, cancelReason: input.reason ?? null, timeline, updatedAt: at },
      extra: [...shipments.map((s) => trackingWatchDone(s.id)), ...stock],
      result: { stockSkus: stock.length ? back.map((l) => l.sku) : [] },
    };
  });
  const already = next === before;
  if (!already) {
    if (result.stockSkus.length) await markLowStock(next.accountId, result.stockSkus).catch((err) => logger.error('low-stock re-arm failed', { orderId: id, error: err as Error }));
    await publishEvents(next.accountId, [{ type: 'order.cancelled', data: { ...orderSummary(next), cancelled_at: next.cancelledAt, reason: next.cancelReason, voided_shipments: next.shipments.map((s) => s.id) } }]);
  }
  return { order: next, already, voided: already ? [] : next.shipments.map((s) => s.id) };
}

/**
 * A label bought here from a carrier that voids labels (FedEx, UPS, USPS) and that has not moved.
 * The built-in carrier's labels and DHL's (MyDHL has no void) cannot be taken back: an order with
 * one is not cancelled once shipped, as before.
 */
function voidable(s: ShipmentRecord): boolean {
  return s.source === 'label' && s.status === 'in_transit' && s.deliveredAt === null && (s.voidedAt != null || carrierFor(s.carrier)?.voidShipment !== undefined);
}
