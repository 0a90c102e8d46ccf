import { describe, expect, it } from 'vitest';
import {
  canCancel,
  canChangeAddress,
  canSetStatus,
  channelStatusMoves,
  checkLines,
  computeTotals,
  fulfillmentOf,
  orderChannels,
  remainingLines,
  searchable,
  statusAfterTracking,
  syncedStatus,
  withShipment,
  type OrderRecord,
  type ShipmentRecord,
} from '#core/orders/model';
import { nextSyncAfter, syncCron, syncEveryMinutes } from '#core/orders/sync-schedule';

const order = (over: Partial<OrderRecord> = {}): OrderRecord => ({
  id: 1,
  accountId: 1,
  orderNumber: 'WEB-1',
  channel: 'web',
  channelOrderId: null,
  channelUpdatedAt: null,
  status: 'processing',
  fulfillmentStatus: 'unfulfilled',
  financialStatus: 'paid',
  customer: { name: 'A', email: 'a@example.com', phone: null },
  shippingAddress: { name: 'A', address1: 'x', city: 'c', state: 's', postal_code: 'p', country: 'AR' },
  billingAddress: null,
  items: [
    { id: 10, productId: 1, sku: 'A', name: 'a', quantity: 2, price: 1, weight: null, quantityFulfilled: 0, channelItemId: null },
    { id: 11, productId: 2, sku: 'B', name: 'b', quantity: 1, price: 1, weight: null, quantityFulfilled: 0, channelItemId: null },
  ],
  currency: 'USD',
  totals: { subtotal: 3, shipping: 0, tax: 0, discount: 0, total: 3 },
  notes: null,
  timeline: [],
  shipments: [],
  cancelledAt: null,
  cancelReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 1,
  ...over,
});

const shipment = (items: { orderItemId: number; quantity: number }[]): ShipmentRecord => ({
  id: 5,
  orderId: 1,
  trackingNumber: 'T1',
  carrier: 'despacho',
  service: 'standard',
  status: 'in_transit',
  items: items.map((i) => ({ ...i, sku: 'A' })),
  source: 'label',
  labelKey: null,
  labelUrl: null,
  warehouseId: 1,
  packages: [],
  estimatedDelivery: null,
  createdAt: '2026-01-02T00:00:00.000Z',
  deliveredAt: null,
});

const path = (i: number, f: string) => `items.${i}.${f}`;

describe('the order state table', () => {
  it('derives fulfillment from shipped quantities against ordered quantities', () => {
    const o = order();
    expect(fulfillmentOf(o.items)).toBe('unfulfilled');
    const partial = withShipment(o, shipment([{ orderItemId: 10, quantity: 1 }]), 'now', 'x');
    expect([partial.fulfillmentStatus, partial.status]).toEqual(['partial', 'processing']);
    const full = withShipment(partial, shipment([{ orderItemId: 10, quantity: 1 }, { orderItemId: 11, quantity: 1 }]), 'now', 'x');
    expect([full.fulfillmentStatus, full.status]).toEqual(['fulfilled', 'shipped']);
    expect(full.timeline.map((t) => t.event)).toEqual(['shipment_created', 'shipment_created', 'status_shipped']);
  });

  it('refuses over-shipping, foreign items and shipping a cancelled or fulfilled order', () => {
    const o = order();
    expect(checkLines(o, [{ orderItemId: 10, quantity: 2 }], path)).toEqual({ ok: true });
    expect(checkLines(o, [{ orderItemId: 10, quantity: 1 }, { orderItemId: 10, quantity: 2 }], path)).toMatchObject({ ok: false, field: 'items.1.quantity' });
    expect(checkLines(o, [{ orderItemId: 99, quantity: 1 }], path)).toMatchObject({ ok: false, field: 'items.0.order_item_id' });
    expect(checkLines(o, [], path)).toMatchObject({ ok: false, kind: 'field' });
    expect(checkLines(order({ status: 'cancelled' }), [{ orderItemId: 10, quantity: 1 }], path)).toMatchObject({ ok: false, kind: 'state' });
    expect(checkLines(order({ fulfillmentStatus: 'fulfilled' }), [{ orderItemId: 10, quantity: 1 }], path)).toMatchObject({ ok: false, kind: 'state' });
    expect(remainingLines(withShipment(o, shipment([{ orderItemId: 10, quantity: 1 }]), 'now', 'x'))).toEqual([
      { orderItemId: 10, quantity: 1 },
      { orderItemId: 11, quantity: 1 },
    ]);
  });

  it('cancels only unfulfilled pending or processing orders', () => {
    expect(canCancel(order())).toEqual({ ok: true });
    expect(canCancel(order({ status: 'pending' }))).toEqual({ ok: true });
    expect(canCancel(order({ fulfillmentStatus: 'partial' }))).toMatchObject({ ok: false, kind: 'state' });
    expect(canCancel(order({ status: 'delivered', fulfillmentStatus: 'fulfilled' }))).toMatchObject({ ok: false });
  });

  it('changes the shipping address only before fulfillment', () => {
    expect(canChangeAddress(order())).toEqual({ ok: true });
    expect(canChangeAddress(order({ fulfillmentStatus: 'partial' }))).toMatchObject({ ok: false });
    expect(canChangeAddress(order({ status: 'cancelled' }))).toMatchObject({ ok: false });
  });

  it('lets PUT move status only where the channel table allows it', () => {
    expect(Object.keys(channelStatusMoves).sort()).toEqual([...orderChannels].sort());
    expect(canSetStatus(order({ status: 'pending' }), 'processing')).toEqual({ ok: true });
    expect(canSetStatus(order(), 'pending')).toEqual({ ok: true });
    expect(canSetStatus(order(), 'shipped')).toMatchObject({ ok: false });
    expect(canSetStatus(order(), 'cancelled')).toMatchObject({ ok: false });
    expect(canSetStatus(order(), 'delivered')).toMatchObject({ ok: false });
    expect(canSetStatus(order({ status: 'shipped', fulfillmentStatus: 'fulfilled' }), 'delivered')).toEqual({ ok: true });
    for (const channel of ['amazon', 'meli', 'ebay'] as const) expect(canSetStatus(order({ channel, status: 'pending' }), 'processing')).toMatchObject({ ok: false });
    expect(canSetStatus(order({ channel: 'shopify', status: 'pending' }), 'processing')).toEqual({ ok: true });
  });

  it('applies a marketplace status forward only, and a cancellation only while unfulfilled', () => {
    expect(syncedStatus(order({ status: 'pending' }), 'processing')).toBe('processing');
    expect(syncedStatus(order({ status: 'shipped', fulfillmentStatus: 'fulfilled' }), 'processing')).toBe('shipped');
    expect(syncedStatus(order(), 'cancelled')).toBe('cancelled');
    expect(syncedStatus(order({ fulfillmentStatus: 'partial' }), 'cancelled')).toBe('processing');
    expect(syncedStatus(order({ status: 'cancelled' }), 'processing')).toBe('cancelled');
  });

  it('makes an order delivered when it is fulfilled and every shipment is delivered', () => {
    const delivered = { ...shipment([]), status: 'delivered' as const };
    expect(statusAfterTracking(order({ status: 'shipped', fulfillmentStatus: 'fulfilled', shipments: [delivered] }))).toBe('delivered');
    expect(statusAfterTracking(order({ status: 'shipped', fulfillmentStatus: 'fulfilled', shipments: [delivered, shipment([])] }))).toBe('shipped');
    expect(statusAfterTracking(order({ status: 'processing', fulfillmentStatus: 'partial', shipments: [delivered] }))).toBe('processing');
  });
});

describe('order arithmetic and search', () => {
  it('adds money in cents so 0.1 + 0.2 is 0.3', () => {
    expect(computeTotals([{ quantity: 1, price: 0.1 }, { quantity: 1, price: 0.2 }], {})).toEqual({ subtotal: 0.3, shipping: 0, tax: 0, discount: 0, total: 0.3 });
    expect(computeTotals([{ quantity: 3, price: 19.99 }], { shipping: 4.5, tax: 1.01, discount: 0.5 }).total).toBe(64.98);
  });

  it('searches without case or accents', () => {
    expect(searchable('Ñandú NÚÑEZ')).toBe('nandu nunez');
  });
});

describe('the sync schedule', () => {
  it('runs on clock boundaries of the configured interval', () => {
    expect(nextSyncAfter(new Date('2026-05-01T10:59:59Z'), 60).toISOString()).toBe('2026-05-01T11:00:00.000Z');
    expect(nextSyncAfter(new Date('2026-05-01T11:00:00Z'), 60).toISOString()).toBe('2026-05-01T12:00:00.000Z');
    expect(nextSyncAfter(new Date('2026-05-01T11:07:00Z'), 15).toISOString()).toBe('2026-05-01T11:15:00.000Z');
    expect(syncCron(60)).toBe('cron(0 * * * ? *)');
    expect(syncCron(15)).toBe('cron(0/15 * * * ? *)');
    expect(syncEveryMinutes({ ORDER_SYNC_EVERY_MINUTES: '15' })).toBe(15);
    expect(syncEveryMinutes({ ORDER_SYNC_EVERY_MINUTES: '7' })).toBe(60);
  });
});
