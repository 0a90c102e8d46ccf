import { describe, expect, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '#clients/typescript/webhooks';

const secret = 'whsec_' + randomBytes(32).toString('base64');
const body = JSON.stringify({ id: 'evt_1', type: 'manifest.processed', created_at: '2026-12-07T10:00:00.000Z', data: { batch_id: 'b1' } });
const now = 1_796_637_600_000;
const ts = Math.floor(now / 1000);

/** Headers as the service signs them: Standard Webhooks' by the stock library, X-Service-Signature per spec 5.7. */
function signed(b = body) {
  const standard = new Webhook(secret).sign('evt_1', new Date(now), b);
  return {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(ts),
    'webhook-signature': standard,
    'X-Service-Timestamp': String(ts),
    'X-Service-Signature': 'sha256=' + createHmac('sha256', secret).update(`${ts}.${b}`).digest('hex'),
  };
}

describe('verifyWebhook', () => {
  it('accepts what the stock standardwebhooks library signs with the same whsec_ secret', async () => {
    expect(await verifyWebhook(secret, body, signed(), { now })).toMatchObject({ id: 'evt_1', type: 'manifest.processed' });
  });

  it('accepts any one of several webhook-signature values (a rotation overlap)', async () => {
    const h = signed();
    h['webhook-signature'] = `v1,${randomBytes(32).toString('base64')} ${h['webhook-signature']}`;
    expect(await verifyWebhook(secret, body, new Headers(h), { now })).toMatchObject({ id: 'evt_1' });
  });

  it('accepts X-Service-Signature alone, keyed with the secret text (spec 5.7)', async () => {
    const { 'X-Service-Timestamp': t, 'X-Service-Signature': s } = signed();
    expect(await verifyWebhook(secret, new TextEncoder().encode(body), { 'x-service-timestamp': t, 'x-service-signature': s }, { now })).toMatchObject({ id: 'evt_1' });
  });

  it('refuses another secret, a changed body, a stale timestamp and a delivery without signature', async () => {
    const other = 'whsec_' + randomBytes(32).toString('base64');
    await expect(verifyWebhook(other, body, signed(), { now })).rejects.toThrow(WebhookVerificationError);
    await expect(verifyWebhook(secret, body.replace('b1', 'b2'), signed(), { now })).rejects.toThrow(/no webhook-signature matches/);
    const { 'X-Service-Timestamp': t, 'X-Service-Signature': s } = signed();
    await expect(verifyWebhook(secret, body.replace('b1', 'b2'), { 'X-Service-Timestamp': t, 'X-Service-Signature': s }, { now })).rejects.toThrow(/X-Service-Signature does not match/);
    await expect(verifyWebhook(secret, body, signed(), { now: now + 301_000 })).rejects.toThrow(/from now/);
    await expect(verifyWebhook(secret, body, {}, { now })).rejects.toThrow(/no signature/);
  });
});
