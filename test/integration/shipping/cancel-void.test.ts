import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { recordEvents } from '#support/events';
import { merchant, placeOrder, warehouse, carrierAccounts } from '#support/orders';
import { manualClock, useClock, useSystemClock } from '#infra/clock';

const step = 60_000;
const t = useTwin({ carrierStepMs: step });
const events = recordEvents();
const clock = manualClock(new Date());
beforeAll(() => useClock(clock));
afterAll(() => useSystemClock());

const { fedex, ups, usps } = carrierAccounts;
const accounts = { fedex, ups, usps };
const services = { fedex: 'international_priority', ups: 'worldwide_saver', usps: 'priority_mail_international', despacho: 'standard' } as const;

async function shop(name: string) {
  const m = await merchant(t, name);
  await t.call('PUT', '/v1/warehouses/1', { token: m.token, body: { ...warehouse, phone: '+1 305 555 0100' } });
  for (const [c, body] of Object.entries(accounts)) await t.call('PUT', `/v1/shipping/carriers/${c}`, { token: m.token, body });
  return m;
}

async function shipEach(token: string, orderId: number, items: { id: number; quantity: number }[], carriers: (keyof typeof services)[]) {
  const out: { carrier: string; tracking: string; id: number }[] = [];
  for (const [k, carrier] of carriers.entries()) {
    const item = items[k];
    const res = await t.call('POST', `/v1/orders/${orderId}/ship`, { token, body: { carrier, service: services[carrier], packages: [{ weight: 1, length: 20, width: 20, height: 10, items: [{ order_item_id: item.id, quantity: item.quantity }] }] } });
    expect(res.status, res.text).toBe(201);
    out.push({ carrier, tracking: res.body.data.tracking_number, id: res.body.data.shipment_id });
  }
  return out;
}

describe('cancel with unused labels', () => {
  it('voids every unused label with its carrier, then cancels: items unshipped, stock back, no more tracking', async () => {
    const m = await shop('Tienda Anula');
    expect((await t.call('PUT', '/v1/inventory/MUG-01', { token: m.token, body: { stock: 10, threshold: 1, warehouse_id: 1 } })).status).toBe(200);
    const order = await placeOrder(t, m.token);
    const shipped = await shipEach(m.token, order.id, order.items, ['ups', 'fedex']);
    expect((await t.call('GET', '/v1/inventory', { token: m.token })).body.data.products.find((p: { sku: string }) => p.sku === 'MUG-01').current_stock).toBe(8);

    const res = await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: m.token, body: { reason: 'customer asked' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ order_id: order.id, status: 'cancelled', voided_shipments: shipped.map((s) => s.id) });
    expect(res.body.message).toBe('Order cancelled; 2 labels voided.');
    for (const s of shipped) expect(t.twin.carriers.shipments.get(s.tracking)?.voided).toBe(true);
    expect(t.twin.carriers.requests.some((r) => r.carrier === 'ups' && r.method === 'DELETE' && r.path === `/api/shipments/v2409/void/cancel/${shipped[0].tracking}`)).toBe(true);
    expect(t.twin.carriers.requests.some((r) => r.carrier === 'fedex' && r.path === '/ship/v1/shipments/cancel' && (r.body as { trackingNumber: string }).trackingNumber === shipped[1].tracking)).toBe(true);

    const detail = (await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data;
    expect(detail).toMatchObject({ status: 'cancelled', fulfillment_status: 'unfulfilled' });
    expect(detail.shipments.every((s: { voided_at?: string }) => typeof s.voided_at === 'string')).toBe(true);
    expect(detail.items.every((i: { quantity_fulfilled: number }) => i.quantity_fulfilled === 0)).toBe(true);
    expect(detail.timeline.filter((e: { event: string }) => e.event === 'shipment_voided')).toHaveLength(2);
    expect((await t.call('GET', '/v1/inventory', { token: m.token })).body.data.products.find((p: { sku: string }) => p.sku === 'MUG-01').current_stock).toBe(10);
    expect(events.filter((e) => e.type === 'order.cancelled')).toHaveLength(1);

    const again = await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: m.token, body: {} });
    expect(again.status).toBe(200);
    expect(again.body.data.cancelled_at).toBe(res.body.data.cancelled_at);
    const update = await t.call('POST', '/v1/shipping/tracking-updates', { token: m.token, body: { tracking_number: shipped[0].tracking, status: 'delivered' } });
    expect(update.status).toBe(409);
    const asked = t.twin.carriers.requests.length;
    await t.twin.jobs.sendOnce('trackingPoll', { kind: 'scheduled' }, `tick-${Math.random()}`);
    await t.settle();
    expect(t.twin.carriers.requests.length).toBe(asked);
  });

  it('cancels an order shipped with USPS; one with a built-in or a DHL label stays shipped (409), nothing voided', async () => {
    const m = await shop('Tienda Mixta');
    await t.call('PUT', '/v1/shipping/carriers/dhl', { token: m.token, body: { client_id: 'dhl-user-0001', client_secret: 'dhl-password-9', account_number: '123456789' } });
    const order = await placeOrder(t, m.token);
    const [u] = await shipEach(m.token, order.id, order.items, ['usps']);
    const res = await t.call('POST', `/v1/orders/${order.id}/cancel`, { token: m.token, body: {} });
    expect(res.status, res.text).toBe(200);
    expect(t.twin.carriers.requests.some((r) => r.carrier === 'usps' && r.method === 'DELETE' && r.path === `/international-labels/v3/international-label/${u.tracking}`)).toBe(true);

    for (const carrier of ['despacho', 'dhl'] as const) {
      const mixed = await placeOrder(t, m.token);
      const lines = mixed.items.map((i: { id: number; quantity: number }) => ({ order_item_id: i.id, quantity: i.quantity }));
      const [first, second] = lines;
      const usps = await t.call('POST', `/v1/orders/${mixed.id}/ship`, { token: m.token, body: { carrier: 'usps', service: services.usps, packages: [{ weight: 1, length: 20, width: 20, height: 10, items: [first] }] } });
      const other = await t.call('POST', `/v1/orders/${mixed.id}/ship`, { token: m.token, body: { carrier, service: carrier === 'dhl' ? 'express_worldwide' : 'standard', packages: [{ weight: 1, length: 20, width: 20, height: 10, items: [second] }] } });
      expect([usps.status, other.status]).toEqual([201, 201]);
      const refused = await t.call('POST', `/v1/orders/${mixed.id}/cancel`, { token: m.token, body: {} });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(new RegExp(`a ${carrier} label, which cannot be voided`));
      expect(t.twin.carriers.shipments.get(usps.body.data.tracking_number)?.voided).toBe(false);
    }
  });

  it('refuses with 409 when a label has moved, or a carrier refuses its void; a retry voids only what is left', async () => {
    const m = await shop('Tienda Tarde');
    const moved = await placeOrder(t, m.token);
    const [a] = await shipEach(m.token, moved.id, moved.items, ['fedex']);
    await t.call('POST', '/v1/shipping/tracking-updates', { token: m.token, body: { tracking_number: a.tracking, status: 'out_for_delivery' } });
    const refused = await t.call('POST', `/v1/orders/${moved.id}/cancel`, { token: m.token, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/unused fedex, ups or usps label, can be cancelled; shipment \d+ is out_for_delivery/);
    expect(t.twin.carriers.shipments.get(a.tracking)?.voided).toBe(false);

    const used = await placeOrder(t, m.token);
    const [u, f] = await shipEach(m.token, used.id, used.items, ['ups', 'fedex']);
    // FedEx refuses the second void: the first label stays voided, the order as it was.
    const cancels = t.twin.carriers.requests.filter((r) => r.carrier === 'fedex' && r.path === '/ship/v1/shipments/cancel').length;
    t.twin.carriers.failOn('fedex', cancels + 1, 400, '/ship/v1/shipments/cancel');
    const late = await t.call('POST', `/v1/orders/${used.id}/cancel`, { token: m.token, body: {} });
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/a label could not be voided. FedEx refused the request \(400\)/);
    expect(late.body.voided_shipments).toEqual([u.id]);
    const after = (await t.call('GET', `/v1/orders/${used.id}`, { token: m.token })).body.data;
    expect(after.status).not.toBe('cancelled');
    expect(after.shipments.find((s: { id: number }) => s.id === u.id).voided_at).toEqual(expect.any(String));
    expect(after.shipments.find((s: { id: number }) => s.id === f.id).voided_at).toBeUndefined();
    const voids = () => t.twin.carriers.requests.filter((r) => r.carrier === 'ups' && r.method === 'DELETE').length;
    const before = voids();
    // The retry voids only what is left, then cancels.
    const retry = await t.call('POST', `/v1/orders/${used.id}/cancel`, { token: m.token, body: {} });
    expect(retry.status, retry.text).toBe(200);
    expect(voids()).toBe(before);

    const delivered = await placeOrder(t, m.token);
    const [d] = await shipEach(m.token, delivered.id, delivered.items, ['fedex']);
    // The carrier's clock runs on: FedEx has delivered the package, though no update came here yet.
    clock.advance(2 * step);
    const tooLate = await t.call('POST', `/v1/orders/${delivered.id}/cancel`, { token: m.token, body: {} });
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.message).toMatch(/SHIPMENT.CANCEL.NOTALLOWED/);
    expect(t.twin.carriers.shipments.get(d.tracking)?.voided).toBe(false);
  });
});
