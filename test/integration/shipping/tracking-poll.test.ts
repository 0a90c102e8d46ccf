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

const { fedex, dhl } = carrierAccounts;
const accounts = { fedex, dhl };

/** One tick of the schedule, run to the end (pages included). */
async function tick() {
  await t.twin.jobs.sendOnce('trackingPoll', { kind: 'scheduled' }, `tick-${clock.now().toISOString()}-${Math.random()}`);
  await t.settle();
}

const trackCalls = () => t.twin.carriers.requests.filter((r) => r.path === '/track/v1/trackingnumbers' || /^\/shipments\/\d+\/tracking$/.test(r.path)).length;

describe('the scheduled tracking poll', () => {
  it("moves each external carrier's shipments as the carrier reports them, fires shipment.delivered once, then stops asking", async () => {
    const m = await merchant(t, 'Tienda Seguimiento');
    await t.call('PUT', '/v1/warehouses/1', { token: m.token, body: { ...warehouse, phone: '+1 305 555 0100' } });
    const shipped: { order: number; tracking: string }[] = [];
    for (const [carrier, service] of [
      ['fedex', 'international_priority'],
      ['dhl', 'express_worldwide'],
    ] as const) {
      await t.call('PUT', `/v1/shipping/carriers/${carrier}`, { token: m.token, body: accounts[carrier] });
      const order = await placeOrder(t, m.token);
      const lines = order.items.map((i: { id: number; quantity: number }) => ({ order_item_id: i.id, quantity: i.quantity }));
      const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: { carrier, service, packages: [{ weight: 1, length: 20, width: 20, height: 10, items: lines }] } });
      expect(res.status, res.text).toBe(201);
      shipped.push({ order: order.id, tracking: res.body.data.tracking_number });
    }
    const statusOf = async (order: number) => (await t.call('GET', `/v1/orders/${order}`, { token: m.token })).body.data;

    await tick();
    for (const s of shipped) expect((await statusOf(s.order)).shipments[0].status).toBe('in_transit');

    clock.advance(step);
    await tick();
    for (const s of shipped) expect((await statusOf(s.order)).shipments[0].status).toBe('out_for_delivery');

    clock.advance(step);
    await tick();
    for (const s of shipped) {
      const order = await statusOf(s.order);
      expect(order.status).toBe('delivered');
      expect(order.shipments[0]).toMatchObject({ status: 'delivered', tracking_number: s.tracking });
      expect(order.timeline.map((e: { event: string }) => e.event)).toEqual(expect.arrayContaining(['shipment_out_for_delivery', 'shipment_delivered', 'status_delivered']));
    }
    const delivered = events.filter((e) => e.type === 'shipment.delivered');
    expect(delivered.map((e) => (e.data as { tracking_number: string }).tracking_number).sort()).toEqual(shipped.map((s) => s.tracking).sort());

    const asked = trackCalls();
    clock.advance(step);
    await tick();
    expect(trackCalls()).toBe(asked);
    expect(events.filter((e) => e.type === 'shipment.delivered')).toHaveLength(2);
  });

  it('keeps polling the others when a carrier fails for one shipment', async () => {
    const m = await merchant(t, 'Tienda Seguimiento Fallido');
    await t.call('PUT', '/v1/warehouses/1', { token: m.token, body: { ...warehouse, phone: '+1 305 555 0100' } });
    await t.call('PUT', '/v1/shipping/carriers/dhl', { token: m.token, body: accounts.dhl });
    const order = await placeOrder(t, m.token);
    const lines = order.items.map((i: { id: number; quantity: number }) => ({ order_item_id: i.id, quantity: i.quantity }));
    const res = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: { carrier: 'dhl', service: 'express_worldwide', packages: [{ weight: 1, length: 20, width: 20, height: 10, items: lines }] } });
    expect(res.status).toBe(201);
    // The merchant disconnects DHL: its shipments cannot be tracked until it is connected again.
    await t.call('DELETE', '/v1/shipping/carriers/dhl', { token: m.token });
    clock.advance(2 * step);
    await tick();
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data.shipments[0].status).toBe('in_transit');
    await t.call('PUT', '/v1/shipping/carriers/dhl', { token: m.token, body: accounts.dhl });
    await tick();
    expect((await t.call('GET', `/v1/orders/${order.id}`, { token: m.token })).body.data.shipments[0].status).toBe('delivered');
  });
});
