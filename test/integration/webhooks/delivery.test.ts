import { beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { useManualClock } from '#support/clock';
import { useTwin } from '#support/twin';
import { useReceiver, type Received } from '#support/receiver';
import { pdf } from '#support/files';

const t = useTwin();
const receiver = useReceiver();
const clock = useManualClock('2026-11-20T10:00:00Z');
beforeEach(() => receiver.clear());

async function partnerWithSubscription(events = ['document.uploaded']) {
  const partner = await t.account(`Hooks ${Math.random()}`);
  const res = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: receiver.url, events } });
  expect(res.status).toBe(201);
  return { ...partner, sub: res.body.data as { id: number; hmac_secret: string } };
}

async function uploadDoc(token: string) {
  const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: pdf(String(Math.random())).toString('base64'), filename: 'a.pdf' } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number };
}

function verify(r: Received, secret: string) {
  const ts = String(r.headers['x-service-timestamp']);
  const expected = 'sha256=' + createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
  return r.headers['x-service-signature'] === expected;
}

async function deliveries(token: string, subId: number) {
  return (await t.call('GET', `/webhook-subscriptions/${subId}/deliveries`, { token })).body.data;
}

describe('subscriptions', () => {
  it('creates a subscription and shows its secret once', async () => {
    const { token, sub } = await partnerWithSubscription(['document.uploaded', 'document.approved']);
    expect(sub).toMatchObject({ endpoint_url: receiver.url, events: ['document.uploaded', 'document.approved'], active: true, hmac_secret: expect.stringMatching(/^whsec_/) });
    const shown = await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token });
    expect(shown.body.data).toMatchObject({ id: sub.id, health_status: 'healthy', health_status_color: 'green', failed_deliveries: 0, last_delivery_at: null });
    expect(shown.body.data).not.toHaveProperty('hmac_secret');
    expect((await t.call('GET', '/webhook-subscriptions', { token })).body).toMatchObject({ count: 1 });
  });

  it("lists both event lists and manifest.reviewed, with type, action and description", async () => {
    const res = await t.call('GET', '/webhook-subscriptions/available-events');
    expect(res.body.count).toBe(19);
    expect(res.body.data).toContainEqual({ event: 'manifest.invalid_cuit_detected', type: 'manifest', action: 'invalid_cuit_detected', description: expect.any(String) });
    expect(res.body.data).toContainEqual({ event: 'manifest.reviewed', type: 'manifest', action: 'reviewed', description: expect.any(String) });
  });

  it('refuses unknown events, no events and bad URLs', async () => {
    const { token } = await t.account('Bad Hooks');
    const bad = [
      [{ endpoint_url: receiver.url, events: ['order.exploded'] }, 'events.0'],
      [{ endpoint_url: receiver.url, events: [] }, 'events'],
      [{ endpoint_url: 'ftp://example.com/x', events: ['order.created'] }, 'endpoint_url'],
      [{ endpoint_url: 'https://example.com/' + 'x'.repeat(500), events: ['order.created'] }, 'endpoint_url'],
    ] as const;
    for (const [body, field] of bad) {
      const res = await t.call('POST', '/webhook-subscriptions', { token, body });
      expect(res.status, field).toBe(422);
      expect(res.body.errors, field).toHaveProperty(field);
    }
  });

  it("answers another account's subscription with 404", async () => {
    const { sub } = await partnerWithSubscription();
    const other = await t.account('Other Hooks');
    for (const [m, p] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/test'], ['GET', '/deliveries'], ['POST', '/rotate-secret']] as const) {
      expect((await t.call(m, `/webhook-subscriptions/${sub.id}${p}`, { token: other.token, body: m === 'PUT' ? { active: false } : undefined })).status, `${m} ${p}`).toBe(404);
    }
  });
});

describe('delivery', () => {
  it('delivers a signed envelope to the subscribed endpoint', async () => {
    const { token, accountId, sub } = await partnerWithSubscription();
    const doc = await uploadDoc(token);
    await t.settle();
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    expect(verify(got, sub.hmac_secret)).toBe(true);
    expect(Number(got.headers['x-service-timestamp'])).toBe(Math.floor(clock.now().getTime() / 1000));
    const envelope = JSON.parse(got.body);
    expect(Object.keys(envelope)).toEqual(['id', 'type', 'created_at', 'data']);
    expect(envelope).toMatchObject({ type: 'document.uploaded', data: { id: doc.id, account_id: accountId, state: 'uploaded', version: 1 } });
    const log = await deliveries(token, sub.id);
    expect(log[0]).toMatchObject({ event_id: envelope.id, event_type: 'document.uploaded', state: 'delivered', next_attempt_at: null, attempts: [{ status_code: 200, error: null }] });
    const shown = await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token });
    expect(shown.body.data.last_success_at).toBe(clock.now().toISOString());
  });

  it('keeps a subscription healthy through many successes in one second', async () => {
    const { token, sub } = await partnerWithSubscription();
    for (let i = 0; i < 3; i++) await uploadDoc(token);
    await t.settle();
    expect(receiver.received).toHaveLength(3);
    const shown = (await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token })).body.data;
    expect(shown).toMatchObject({ health_status: 'healthy', consecutive_failures: 0, failed_deliveries: 0 });
  });

  it('delivers nothing for events the subscription did not name or for other accounts', async () => {
    const { token } = await partnerWithSubscription(['document.approved']);
    await uploadDoc(token);
    const stranger = await t.account('Stranger');
    await uploadDoc(stranger.token);
    await t.settle();
    expect(receiver.received).toHaveLength(0);
  });

  it('retries at +1 min, +5 min, +30 min, +2 h and +24 h, then fails for good', async () => {
    const { token, sub } = await partnerWithSubscription();
    receiver.status = () => 500;
    const start = clock.now().getTime();
    await uploadDoc(token);
    await t.settle();
    const offsets = [0];
    for (const delay of [60_000, 300_000, 1_800_000, 7_200_000, 86_400_000]) {
      const [log] = await deliveries(token, sub.id);
      expect(log.state).toBe('retrying');
      expect(Date.parse(log.next_attempt_at) - clock.now().getTime()).toBe(delay);
      clock.advance(delay - 1000);
      await t.settle();
      expect(receiver.received).toHaveLength(offsets.length);
      clock.advance(1000);
      await t.settle();
      offsets.push(clock.now().getTime() - start);
      expect(receiver.received).toHaveLength(offsets.length);
    }
    expect(offsets).toEqual([0, 60_000, 360_000, 2_160_000, 9_360_000, 95_760_000]);
    const [log] = await deliveries(token, sub.id);
    expect(log).toMatchObject({ state: 'failed', next_attempt_at: null });
    expect(log.attempts).toHaveLength(6);
    expect(new Set(receiver.received.map((r) => JSON.parse(r.body).id)).size).toBe(1);
    clock.advance(7 * 86_400_000);
    await t.settle();
    expect(receiver.received).toHaveLength(6);
    const shown = (await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token })).body.data;
    expect(shown).toMatchObject({ health_status: 'unhealthy', health_status_color: 'red', consecutive_failures: 6, failed_deliveries: 6, active: true });
  });

  it('moves health from healthy to degraded to unhealthy and disables at 10 consecutive failures', async () => {
    const { token, sub } = await partnerWithSubscription();
    receiver.status = () => 503;
    const seen: string[] = [];
    for (let i = 1; i <= 10; i++) {
      await uploadDoc(token);
      await t.settle();
      seen.push((await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token })).body.data.health_status);
    }
    expect(seen).toEqual(['degraded', 'degraded', 'degraded', 'degraded', 'degraded', 'unhealthy', 'unhealthy', 'unhealthy', 'unhealthy', 'disabled']);
    const shown = (await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token })).body.data;
    expect(shown).toMatchObject({ active: false, health_status_color: 'gray' });
    receiver.received.length = 0;
    clock.advance(60_000);
    await t.settle();
    expect(receiver.received).toHaveLength(0);

    receiver.status = () => 200;
    const put = await t.call('PUT', `/webhook-subscriptions/${sub.id}`, { token, body: { active: true } });
    expect(put.body.data).toMatchObject({ active: true, health_status: 'healthy' });
  });

  it('resets the failure count on a success', async () => {
    const { token, sub } = await partnerWithSubscription();
    receiver.status = () => 500;
    await uploadDoc(token);
    await t.settle();
    receiver.status = () => 204;
    clock.advance(60_000);
    await t.settle();
    const shown = (await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token })).body.data;
    expect(shown).toMatchObject({ health_status: 'healthy', consecutive_failures: 0, failed_deliveries: 1 });
  });

  it('disables a subscription at once when the receiver answers 410 Gone', async () => {
    const { token, sub } = await partnerWithSubscription();
    receiver.status = () => 410;
    await uploadDoc(token);
    await t.settle();
    const shown = (await t.call('GET', `/webhook-subscriptions/${sub.id}`, { token })).body.data;
    expect(shown).toMatchObject({ active: false, health_status: 'disabled', disabled_reason: expect.stringContaining('410') });
    const [log] = await deliveries(token, sub.id);
    expect(log.state).toBe('failed');
  });
});

describe('manual retries, test deliveries and secrets', () => {
  it('sends a failed delivery again now', async () => {
    const { token, sub } = await partnerWithSubscription();
    receiver.status = () => 500;
    await uploadDoc(token);
    await t.settle();
    const [log] = await deliveries(token, sub.id);
    receiver.status = () => 200;
    const res = await t.call('POST', `/webhook-subscriptions/${sub.id}/deliveries/${log.id}/retry`, { token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ state: 'delivered', next_attempt_at: null });
    expect(res.body.data.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
    expect((await t.call('POST', `/webhook-subscriptions/${sub.id}/deliveries/${log.id}/retry`, { token })).status).toBe(409);
    expect((await t.call('POST', `/webhook-subscriptions/${sub.id}/deliveries/999999/retry`, { token })).status).toBe(404);
  });

  it('resends every failed delivery since a time', async () => {
    const { token, sub } = await partnerWithSubscription();
    receiver.status = () => 410;
    await uploadDoc(token);
    await t.settle();
    await t.call('PUT', `/webhook-subscriptions/${sub.id}`, { token, body: { active: true } });
    receiver.status = () => 200;
    receiver.received.length = 0;
    const res = await t.call('POST', `/webhook-subscriptions/${sub.id}/deliveries/retry-failed`, { token, body: { since: '2026-01-01T00:00:00Z' } });
    expect(res.body.data).toEqual({ queued: 1 });
    await t.settle();
    expect(receiver.received).toHaveLength(1);
    expect((await deliveries(token, sub.id))[0].state).toBe('delivered');
  });

  it('answers a test delivery with its status and time, or the failure body', async () => {
    const { token, sub } = await partnerWithSubscription();
    const okRes = await t.call('POST', `/webhook-subscriptions/${sub.id}/test`, { token });
    expect(okRes.status).toBe(200);
    expect(okRes.body).toMatchObject({ success: true, data: { status_code: 200, response_time_ms: expect.any(Number) } });
    expect(verify(receiver.received[0], sub.hmac_secret)).toBe(true);
    expect(JSON.parse(receiver.received[0].body).type).toBe('webhook.test');
    receiver.status = () => 500;
    const bad = await t.call('POST', `/webhook-subscriptions/${sub.id}/test`, { token });
    expect(bad.body).toMatchObject({ success: false, message: expect.any(String), data: { status_code: 500, error: expect.any(String) } });
    expect((await deliveries(token, sub.id))).toHaveLength(0);
  });

  it('signs deliveries with a rotated secret from then on', async () => {
    const { token, sub } = await partnerWithSubscription();
    const rotated = await t.call('POST', `/webhook-subscriptions/${sub.id}/rotate-secret`, { token });
    const secret = rotated.body.data.hmac_secret;
    expect(secret).not.toBe(sub.hmac_secret);
    await uploadDoc(token);
    await t.settle();
    expect(verify(receiver.received[0], secret)).toBe(true);
    expect(verify(receiver.received[0], sub.hmac_secret)).toBe(false);
  });

  it('deletes a subscription and delivers to it no more', async () => {
    const { token, sub } = await partnerWithSubscription();
    expect((await t.call('DELETE', `/webhook-subscriptions/${sub.id}`, { token })).body).toMatchObject({ success: true, message: expect.any(String) });
    await uploadDoc(token);
    await t.settle();
    expect(receiver.received).toHaveLength(0);
  });
});
