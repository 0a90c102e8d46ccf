import { describe, expect, it } from 'vitest';
import { useTwin, type TestTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';
import { manifest, submitPath } from '#support/manifests';
import { merchant, placeOrder, shipBody } from '#support/orders';
import { rateLimits } from '#catalog/rates';

/**
 * The twin's GET /api/v1/admin/metrics shows the business metrics the services record, the same
 * calls that send them to CloudWatch in AWS. The tally belongs to the process, so every test
 * compares the figures after its work with the figures before it.
 */
const t = useTwin();
const receiver = useReceiver();

interface Metric {
  name: string;
  unit: string;
  dimensions: Record<string, string>;
  samples: number;
  sum: number;
}

async function metrics(tw: TestTwin = t): Promise<Metric[]> {
  const res = await tw.call('GET', '/v1/admin/metrics');
  expect(res.status).toBe(200);
  return res.body.data.metrics;
}

/** The sum of a metric over the series whose dimensions include `dims`. */
function total(list: Metric[], name: string, dims: Record<string, string> = {}): number {
  return list.filter((m) => m.name === name && Object.entries(dims).every(([k, v]) => m.dimensions[k] === v)).reduce((a, m) => a + m.sum, 0);
}

describe('GET /v1/admin/metrics on the twin', () => {
  it('counts a manifest submitted, its items accepted, each stage of its run and the run completed', async () => {
    const { token } = await t.account('Metrics Couriers');
    const before = await metrics();
    const res = await t.submit(submitPath(), { token, body: manifest(3) });
    expect(res.status).toBe(202);
    await t.settle();
    const after = await metrics();
    expect(total(after, 'ManifestsSubmitted', { mode: 'create', group: 'couriers' }) - total(before, 'ManifestsSubmitted', { mode: 'create' })).toBe(1);
    expect(total(after, 'ItemsAccepted') - total(before, 'ItemsAccepted')).toBe(3);
    expect(total(after, 'ManifestsCompleted') - total(before, 'ManifestsCompleted')).toBe(1);
    for (const stage of ['classification', 'webservices', 'ai', 'calculations']) {
      const series = after.find((m) => m.name === 'StageDuration' && m.dimensions.pipelineStage === stage);
      expect(series, stage).toMatchObject({ unit: 'Milliseconds', dimensions: { stage: 'local', group: 'manifests', pipelineStage: stage } });
      expect(after.find((m) => m.name === 'StageItemsPerSecond' && m.dimensions.pipelineStage === stage)?.sum, stage).toBeGreaterThan(0);
    }
    expect(total(after, 'ItemsClassified') - total(before, 'ItemsClassified')).toBe(3);
  });

  it('counts an order created and shipped, and the webhook delivery it set off', async () => {
    const m = await merchant(t, 'Metrics Merchant');
    const sub = await t.call('POST', '/webhook-subscriptions', { token: m.token, body: { endpoint_url: receiver.url, events: ['order.created'] } });
    expect(sub.status).toBe(201);
    const before = await metrics();
    const order = await placeOrder(t, m.token);
    const shipped = await t.call('POST', `/v1/orders/${order.id}/ship`, { token: m.token, body: shipBody([{ order_item_id: order.items[0].id, quantity: 1 }]) });
    expect(shipped.status).toBe(201);
    await t.settle();
    expect(receiver.received.length).toBeGreaterThan(0);
    const after = await metrics();
    expect(total(after, 'OrdersCreated', { channel: 'web', group: 'orders' }) - total(before, 'OrdersCreated', { channel: 'web' })).toBe(1);
    expect(total(after, 'OrdersShipped', { source: 'label' }) - total(before, 'OrdersShipped', { source: 'label' })).toBe(1);
    expect(total(after, 'WebhookDeliveries', { outcome: 'succeeded', group: 'webhooks' }) - total(before, 'WebhookDeliveries', { outcome: 'succeeded' })).toBe(1);
  });

  it('counts the API requests by route group and status class', async () => {
    const { token } = await t.account('Metrics Counted');
    const before = await metrics();
    expect((await t.call('GET', '/v1/orders/abc', { token })).status).toBeGreaterThanOrEqual(400);
    expect((await t.call('GET', '/v1/me', { token })).status).toBe(200);
    const after = await metrics();
    expect(total(after, 'ApiRequests', { group: 'account', status: '2xx' }) - total(before, 'ApiRequests', { group: 'account', status: '2xx' })).toBe(1);
    expect(total(after, 'ApiRequests', { group: 'orders', status: '4xx' }) - total(before, 'ApiRequests', { group: 'orders', status: '4xx' })).toBe(1);
  });

  it('counts a 429 under its rate group', async () => {
    const { token } = await t.account('Metrics Limited');
    const before = await metrics();
    const answers = [];
    for (let i = 0; i <= rateLimits.account; i++) answers.push((await t.call('GET', '/v1/me', { token })).status);
    expect(answers.at(-1)).toBe(429);
    const after = await metrics();
    expect(total(after, 'RateLimited', { rateGroup: 'account', group: 'auth' }) - total(before, 'RateLimited', { rateGroup: 'account' })).toBe(1);
  });

  it('never uses an account, batch or token as a dimension', async () => {
    const { accountId } = await t.account('Metrics Bounded');
    for (const m of await metrics()) {
      expect(Object.keys(m.dimensions).sort()).toEqual(expect.arrayContaining(['group', 'stage']));
      expect(Object.keys(m.dimensions).length).toBeLessThanOrEqual(3);
      expect(Object.values(m.dimensions)).not.toContain(String(accountId));
    }
  });

  it('answers Prometheus text with format=prometheus', async () => {
    const res = await t.call('GET', '/v1/admin/metrics?format=prometheus');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(/^# TYPE despacho_api_requests_total counter$/m);
    expect(res.text).toMatch(/^despacho_api_requests_total\{stage="local",group="[a-z]+",status="[2-5]xx"\} \d+$/m);
  });

  it('is for the admin role only and names a bad format', async () => {
    const { token } = await t.account('Metrics Partner');
    expect((await t.call('GET', '/v1/admin/metrics', { token })).status).toBe(403);
    expect((await t.call('GET', '/v1/admin/metrics', { token: null })).status).toBe(401);
    const bad = await t.call('GET', '/v1/admin/metrics?format=xml');
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('format');
  });
});
