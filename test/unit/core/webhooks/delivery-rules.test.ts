import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  health,
  healthColors,
  isOldFormSecret,
  newSigningSecret,
  nextAttemptAt,
  signature,
  signedHeaders,
  standardSignature,
  standardWebhooksSecret,
} from '#core/webhooks/delivery-rules';
import { describeEvent, webhookEvents } from '#core/webhooks/events';
import { lowStockPayload, orderCreatedPayload, shipmentCreatedPayload } from '#core/webhooks/payloads';

describe('the retry schedule', () => {
  it('waits 1 min, 5 min, 30 min, 2 h and 24 h after each failure, then gives up', () => {
    const t = new Date('2026-11-20T00:00:00Z');
    const delays = [1, 2, 3, 4, 5].map((n) => nextAttemptAt(n, t)!.getTime() - t.getTime());
    expect(delays).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 86_400_000]);
    expect(nextAttemptAt(6, t)).toBeNull();
  });
});

describe('health', () => {
  it('follows spec 3.4 from consecutive failures', () => {
    expect([0, 1, 5, 6, 9, 10, 25].map((n) => health(n, true))).toEqual(['healthy', 'degraded', 'degraded', 'unhealthy', 'unhealthy', 'disabled', 'disabled']);
    expect(health(0, false)).toBe('disabled');
    expect(healthColors).toEqual({ healthy: 'green', degraded: 'yellow', unhealthy: 'red', disabled: 'gray' });
  });
});

describe('signatures', () => {
  it('are the hex HMAC-SHA256 of "<timestamp>.<body>" with a sha256= prefix', () => {
    const body = '{"id":"evt_1"}';
    const expected = createHmac('sha256', 'whsec_x').update(`1700000000.${body}`).digest('hex');
    expect(signature('whsec_x', 1700000000, body)).toBe(`sha256=${expected}`);
    expect(signedHeaders('whsec_x', 1700000000, body, { id: 'evt_1' })).toMatchObject({ 'X-Service-Signature': `sha256=${expected}`, 'X-Service-Timestamp': '1700000000' });
  });

  it('come from one secret of 32 random bytes that the standardwebhooks package takes as it is', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(isOldFormSecret(secret)).toBe(false);
    expect(standardWebhooksSecret(secret)).toBe(secret);
    expect(newSigningSecret()).not.toBe(secret);
    const body = '{"id":"evt_1"}';
    const h = signedHeaders(secret, Math.floor(Date.now() / 1000), body, { id: 'evt_1' });
    expect(new Webhook(secret).verify(body, h)).toEqual({ id: 'evt_1' });
    expect(h['X-Service-Signature']).toBe('sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${h['X-Service-Timestamp']}.${body}`).digest('hex'));
  });

  it('carry the Standard Webhooks headers, keyed with the bytes a whsec_ secret stands for', () => {
    const key = Buffer.alloc(32, 7);
    const secret = 'whsec_' + key.toString('base64');
    const body = '{"id":"evt_1"}';
    const v1 = createHmac('sha256', key).update(`evt_1.1700000000.${body}`).digest('base64');
    expect(signedHeaders(secret, 1700000000, body, { id: 'evt_1' })).toEqual({
      'X-Service-Signature': signature(secret, 1700000000, body),
      'X-Service-Timestamp': '1700000000',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${v1}`,
    });
  });

  it('of an old-form secret (base64url) use the same key, spelled in base64 for the libraries', () => {
    const key = Buffer.alloc(32, 0xfb);
    const old = 'whsec_' + key.toString('base64url');
    expect(old).toMatch(/[-_]/);
    expect(isOldFormSecret(old)).toBe(true);
    expect(standardWebhooksSecret(old)).toBe('whsec_' + key.toString('base64'));
    const body = '{"id":"evt_1"}';
    const h = signedHeaders(old, Math.floor(Date.now() / 1000), body, { id: 'evt_1' });
    expect(() => new Webhook(old).verify(body, h)).toThrow();
    expect(new Webhook(standardWebhooksSecret(old)).verify(body, h)).toEqual({ id: 'evt_1' });
    expect(h['X-Service-Signature']).toBe(signature(old, Number(h['X-Service-Timestamp']), body));
  });

  it('sign with both secrets during a rotation overlap: webhook-signature space-separated, X-Service-Previous-Signature beside X-Service-Signature', () => {
    const [now, before] = [newSigningSecret(), newSigningSecret()];
    const h = signedHeaders(now, 1700000000, '{}', { id: 'evt_2', previousSecrets: [before] });
    expect(h['webhook-signature'].split(' ')).toEqual([standardSignature([now], 'evt_2', 1700000000, '{}'), standardSignature([before], 'evt_2', 1700000000, '{}')]);
    expect(h['X-Service-Signature']).toBe(signature(now, 1700000000, '{}'));
    expect(h['X-Service-Previous-Signature']).toBe(signature(before, 1700000000, '{}'));
    expect(signedHeaders(now, 1700000000, '{}', { id: 'evt_2' })).not.toHaveProperty('X-Service-Previous-Signature');
  });

  it('verify with the standardwebhooks package for any secret, by its whsec_ form', () => {
    const body = JSON.stringify({ id: 'evt_3', type: 'document.uploaded', created_at: '2026-11-20T10:00:00.000Z', data: { a: 'ñ' } });
    const ts = Math.floor(Date.now() / 1000);
    for (const secret of [newSigningSecret(), 'whsec_x', 'plain secret', 'whsec_abc+/==']) {
      const h = signedHeaders(secret, ts, body, { id: 'evt_3' });
      expect(new Webhook(standardWebhooksSecret(secret)).verify(body, h), secret).toMatchObject({ id: 'evt_3' });
      expect(() => new Webhook(standardWebhooksSecret(newSigningSecret())).verify(body, h)).toThrow(WebhookVerificationError);
      expect(() => new Webhook(standardWebhooksSecret(secret)).verify(body.replace('ñ', 'n'), h)).toThrow(WebhookVerificationError);
    }
    const [now, before] = [newSigningSecret(), newSigningSecret()];
    const both = signedHeaders(now, ts, body, { id: 'evt_3', previousSecrets: [before] });
    for (const s of [now, before]) expect(new Webhook(standardWebhooksSecret(s)).verify(body, both)).toMatchObject({ id: 'evt_3' });
  });
});

describe('event catalog', () => {
  it("joins both lists of spec 6 with type and action, and the service's own (delivery.recorded, issue 44)", () => {
    expect(webhookEvents).toHaveLength(19);
    expect(webhookEvents.map((e) => e.event)).toContain('delivery.recorded');
    expect(describeEvent(webhookEvents[0])).toEqual({ event: 'order.created', type: 'order', action: 'created', description: 'New order received' });
  });
});

describe('payloads of spec 6.3', () => {
  it('give order.created exactly its fields', () => {
    const p = orderCreatedPayload({
      id: 1,
      orderNumber: 'WEB-1001',
      channel: 'web',
      channelOrderId: null,
      status: 'pending',
      customer: { name: 'Ana', email: 'ana@example.com' },
      items: [{ id: 7, sku: 'SKU-1', name: 'Mate', quantity: 2, price: 10.5, currency: 'USD' }],
      totals: { subtotal: 21, shipping: 5, total: 26, currency: 'USD' },
      createdAt: '2026-11-20T10:00:00.000Z',
    });
    expect(Object.keys(p)).toEqual(['id', 'order_number', 'channel', 'channel_order_id', 'status', 'customer', 'items', 'totals', 'created_at']);
    expect(Object.keys(p.totals)).toEqual(['subtotal', 'shipping', 'total', 'currency']);
  });

  it('give shipment.created and inventory.low_stock exactly their fields', () => {
    expect(Object.keys(shipmentCreatedPayload({ shipmentId: 1, orderId: 2, carrier: 'despacho', service: 'standard', trackingNumber: 'T1', labelUrl: '/l', estimatedDelivery: '2026-11-25', createdAt: 'x' }))).toEqual([
      'shipment_id', 'order_id', 'carrier', 'service', 'tracking_number', 'label_url', 'estimated_delivery', 'created_at',
    ]);
    expect(Object.keys(lowStockPayload({ productId: 1, sku: 'S', name: 'N', currentStock: 2, threshold: 5, warehouseId: 3, warehouseName: 'EZE' }))).toEqual([
      'product_id', 'sku', 'name', 'current_stock', 'threshold', 'warehouse_id', 'warehouse_name',
    ]);
  });
});
