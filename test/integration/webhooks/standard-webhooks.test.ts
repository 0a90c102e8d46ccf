import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { getSubscription, setSubscriptionSecret } from '#infra/entities/webhooks';
import { useTwin } from '#support/twin';
import { useReceiver, type Received } from '#support/receiver';
import { pdf } from '#support/files';

const t = useTwin();
const receiver = useReceiver();
beforeEach(() => receiver.clear());
afterAll(() => useSystemClock());

async function uploadDoc(token: string) {
  const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: pdf(String(Math.random())).toString('base64'), filename: 'a.pdf' } });
  expect(res.status).toBe(201);
}

async function subscribed() {
  const partner = await t.account(`Standard ${Math.random()}`);
  const res = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: receiver.url, events: ['document.uploaded'] } });
  expect(res.status).toBe(201);
  return { ...partner, sub: res.body.data as { id: number; hmac_secret: string; standard_webhooks_secret: string } };
}

/** The spec 5.7 check, as before. */
function serviceSignatureOk(r: Received, secret: string) {
  const ts = String(r.headers['x-service-timestamp']);
  return r.headers['x-service-signature'] === 'sha256=' + createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
}

function headersOf(r: Received): Record<string, string> {
  return Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
}

/** Puts an old-form secret (`whsec_<base64url>`, as subscriptions were made before issue 42) on a subscription. */
async function withOldFormSecret(id: number): Promise<string> {
  let old: string;
  do old = 'whsec_' + randomBytes(32).toString('base64url');
  while (!/[-_]/.test(old));
  expect(await setSubscriptionSecret((await getSubscription(id))!, old, new Date().toISOString())).toBe(true);
  return old;
}

describe('Standard Webhooks signatures on real deliveries', () => {
  it('verify with the standardwebhooks package given hmac_secret as it is, and by the X-Service-Signature rule with the same secret', async () => {
    const { token, sub } = await subscribed();
    expect(sub.hmac_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(sub.hmac_secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(sub.standard_webhooks_secret).toBe(sub.hmac_secret);
    await uploadDoc(token);
    await t.settle();
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    const envelope = new Webhook(sub.hmac_secret).verify(got.body, headersOf(got)) as { id: string; type: string };
    expect(envelope.type).toBe('document.uploaded');
    expect(got.headers['webhook-id']).toBe(envelope.id);
    expect(got.headers['webhook-timestamp']).toBe(got.headers['x-service-timestamp']);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(got.headers).not.toHaveProperty('x-service-previous-signature');
    expect(serviceSignatureOk(got, sub.hmac_secret)).toBe(true);
    expect(() => new Webhook(sub.hmac_secret).verify(got.body.replace('uploaded', 'approved'), headersOf(got))).toThrow(WebhookVerificationError);
  });

  it('of a subscription with an old-form secret still verify: X-Service-Signature with it as before, webhook-signature with its whsec_ base64 spelling', async () => {
    const { token, sub } = await subscribed();
    const old = await withOldFormSecret(sub.id);
    await uploadDoc(token);
    await t.settle();
    const [got] = receiver.received;
    expect(serviceSignatureOk(got, old)).toBe(true);
    expect(serviceSignatureOk(got, sub.hmac_secret)).toBe(false);
    const standard = 'whsec_' + Buffer.from(old.slice('whsec_'.length), 'base64url').toString('base64');
    expect(new Webhook(standard).verify(got.body, headersOf(got))).toMatchObject({ type: 'document.uploaded' });
  });

  it("rotate an old-form secret to the one form, the old one signing both headers beside it for 24 hours", async () => {
    const { token, sub } = await subscribed();
    const old = await withOldFormSecret(sub.id);
    const rotated = await t.call('POST', `/webhook-subscriptions/${sub.id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data as { hmac_secret: string; standard_webhooks_secret: string };
    expect(fresh.hmac_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(fresh.standard_webhooks_secret).toBe(fresh.hmac_secret);
    await uploadDoc(token);
    await t.settle();
    const [got] = receiver.received;
    expect(new Webhook(fresh.hmac_secret).verify(got.body, headersOf(got))).toMatchObject({ type: 'document.uploaded' });
    expect(serviceSignatureOk(got, fresh.hmac_secret)).toBe(true);
    const ts = String(got.headers['x-service-timestamp']);
    expect(got.headers['x-service-previous-signature']).toBe('sha256=' + createHmac('sha256', old).update(`${ts}.${got.body}`).digest('hex'));
    const standardOld = 'whsec_' + Buffer.from(old.slice('whsec_'.length), 'base64url').toString('base64');
    expect(new Webhook(standardOld).verify(got.body, headersOf(got))).toMatchObject({ type: 'document.uploaded' });
  });

  it('signs the test delivery the same way', async () => {
    const { token, sub } = await subscribed();
    expect((await t.call('POST', `/webhook-subscriptions/${sub.id}/test`, { token })).status).toBe(200);
    const [got] = receiver.received;
    expect(new Webhook(sub.hmac_secret).verify(got.body, headersOf(got))).toMatchObject({ type: 'webhook.test' });
    expect(serviceSignatureOk(got, sub.hmac_secret)).toBe(true);
  });

  it('carries both signatures for 24 hours after a rotation, then the new one only', async () => {
    const { token, sub } = await subscribed();
    const rotated = await t.call('POST', `/webhook-subscriptions/${sub.id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data as { hmac_secret: string; previous_secret_expires_at: string };
    expect(fresh.hmac_secret).toMatch(/^whsec_/);
    expect(fresh.hmac_secret).not.toBe(sub.hmac_secret);
    expect(Date.parse(fresh.previous_secret_expires_at) - Date.now()).toBeGreaterThan(24 * 3600_000 - 60_000);
    await uploadDoc(token);
    await t.settle();
    const [got] = receiver.received;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [fresh.hmac_secret, sub.hmac_secret]) {
      expect(new Webhook(secret).verify(got.body, headersOf(got))).toMatchObject({ type: 'document.uploaded' });
    }
    expect(serviceSignatureOk(got, fresh.hmac_secret)).toBe(true);
    expect(serviceSignatureOk(got, sub.hmac_secret)).toBe(false);
    expect(serviceSignatureOk({ ...got, headers: { ...got.headers, 'x-service-signature': got.headers['x-service-previous-signature'] } }, sub.hmac_secret)).toBe(true);

    // A day later the old secret signs nothing (the library's 5-minute window is checked by hand here).
    receiver.clear();
    const clock = manualClock(new Date(Date.now() + 24 * 3600_000 + 1000));
    useClock(clock);
    try {
      await uploadDoc(token);
      await t.settle();
    } finally {
      useSystemClock();
    }
    const [later] = receiver.received;
    const id = String(later.headers['webhook-id']);
    const at = new Date(Number(later.headers['webhook-timestamp']) * 1000);
    expect(later.headers['webhook-signature']).toBe(new Webhook(fresh.hmac_secret).sign(id, at, later.body));
    expect(later.headers).not.toHaveProperty('x-service-previous-signature');
  });
});
