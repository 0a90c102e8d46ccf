import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { useTwin } from '#support/twin';
import { documentClient } from '#infra/dynamo';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { inRequestWriteJobDelaySeconds } from '#services/manifests/intake';

const t = useTwin();

afterEach(() => {
  vi.restoreAllMocks();
  useSystemClock();
});

const product = (i: number, over: Record<string, unknown> = {}) => ({
  awb_number: `ALT${String(i).padStart(6, '0')}`,
  consignee: `Buyer ${i}`,
  tax_id: '20-12345678-6',
  product_description: 'Wireless earbuds',
  quantity: 3,
  unit_value: 0.1,
  country_of_manufacture: 'cn',
  ...over,
});

describe('alternative manifest interface', () => {
  it('creates a manifest from products (201 pending) and lists it', async () => {
    const { token } = await t.account('Alt Couriers');
    const res = await t.submit('/v1/manifests', { token, body: { manifest: 'ALT-1', products: [product(1), product(2)] } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ manifest_id: 'ALT-1', total_products: 2, processing_status: 'pending', batch_id: expect.stringMatching(/^BT/) });
    const list = await t.call('GET', '/v1/manifests', { token });
    expect(list.body.data).toEqual([expect.objectContaining({ manifest_id: 'ALT-1', total_products: 2, processing_status: 'pending' })]);
    expect(list.body.meta).toMatchObject({ current_page: 1, total: 1 });
  });

  it('lists the manifest and shows its products the moment it answers 201, before any queued job runs', async () => {
    const { token } = await t.account('Alt Now Couriers');
    const res = await t.call('POST', '/v1/manifests', { token, body: { manifest: 'ALT-NOW', products: [product(1), product(2), product(3)] } });
    expect(res.status).toBe(201);
    const list = await t.call('GET', '/v1/manifests', { token });
    expect(list.body.data).toEqual([expect.objectContaining({ manifest_id: 'ALT-NOW', batch_id: res.body.data.batch_id, total_products: 3, processing_status: 'pending' })]);
    for (const id of ['ALT-NOW', res.body.data.batch_id]) {
      const detail = await t.call('GET', `/v1/manifests/${id}`, { token });
      expect(detail.status).toBe(200);
      expect(detail.body.data.products.map((p: { awb_number: string }) => p.awb_number).sort()).toEqual(['ALT000001', 'ALT000002', 'ALT000003']);
    }
    // Processing was requested once the items were written, and the queued job stays the safety net.
    await t.settle();
    expect((await t.call('GET', '/v1/manifests/ALT-NOW', { token })).body.data.manifest.processing_status).toBe('completed');
  });

  it('shows nothing of an upload whose request died while writing, and writes it whole on the retry or from its delayed job', async () => {
    const clock = manualClock(new Date());
    useClock(clock);
    const client = documentClient();
    const send = client.send.bind(client);
    const dieWhileWriting = () =>
      vi.spyOn(client, 'send').mockImplementation(((command: unknown) => {
        if (command instanceof BatchWriteCommand) return Promise.reject(new Error('connection reset'));
        return send(command as never);
      }) as never);
    const { token } = await t.account('Alt Crash Couriers');
    const products = Array.from({ length: 60 }, (_, i) => product(i + 1));
    // Retried by the client under the same key: the replay writes it before it answers.
    const key = randomUUID();
    dieWhileWriting();
    expect((await t.call('POST', '/v1/manifests', { token, body: { manifest: 'ALT-CRASH-1', products }, headers: { 'idempotency-key': key } })).status).toBe(500);
    vi.restoreAllMocks();
    expect((await t.call('GET', '/v1/manifests', { token })).body.data).toEqual([]);
    expect((await t.call('GET', '/v1/manifests/ALT-CRASH-1', { token })).status).toBe(404);
    const retry = await t.call('POST', '/v1/manifests', { token, body: { manifest: 'ALT-CRASH-1', products }, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await t.call('GET', '/v1/manifests/ALT-CRASH-1?per_page=100', { token })).body.data.products).toHaveLength(60);
    // Never retried: the queued job, due once the request cannot be alive any more, writes it.
    dieWhileWriting();
    expect((await t.call('POST', '/v1/manifests', { token, body: { manifest: 'ALT-CRASH-2', products } })).status).toBe(500);
    vi.restoreAllMocks();
    await t.intake();
    expect((await t.call('GET', '/v1/manifests/ALT-CRASH-2', { token })).status).toBe(404);
    clock.advance(inRequestWriteJobDelaySeconds * 1000);
    await t.intake();
    const detail = await t.call('GET', '/v1/manifests/ALT-CRASH-2?per_page=100', { token });
    expect(detail.status).toBe(200);
    expect(detail.body.data.products).toHaveLength(60);
    expect((await t.call('GET', '/v1/manifests', { token })).body.data.map((m: { manifest_id: string }) => m.manifest_id).sort()).toEqual(['ALT-CRASH-1', 'ALT-CRASH-2']);
  });

  it('shows the products with the customs fields, empty until processed, and the tax id as digits', async () => {
    const { token } = await t.account('Alt Detail Couriers');
    await t.submit('/v1/manifests', { token, body: { manifest: 'ALT-2', products: [product(7)] } });
    const res = await t.call('GET', '/v1/manifests/ALT-2', { token });
    expect(res.status).toBe(200);
    expect(res.body.data.manifest).toMatchObject({ manifest_id: 'ALT-2', processing_status: 'pending' });
    expect(res.body.data.products).toEqual([
      expect.objectContaining({
        awb_number: 'ALT000007',
        quantity: 3,
        fob_value: 0.3,
        country_of_manufacture: 'CN',
        ncm_code: null,
        cif_value: null,
        ddp_value: null,
        customs_duty: null,
        quota: { tax_id: '20123456786', quota: null },
      }),
    ]);
  });

  it('refuses more than 1000 products with 422', async () => {
    const { token } = await t.account('Alt Big Couriers');
    const res = await t.submit('/v1/manifests', { token, body: { manifest: 'ALT-3', products: Array.from({ length: 1001 }, (_, i) => product(i)) } });
    expect(res.status).toBe(422);
    expect(res.body.errors.products[0]).toContain('1000');
  });

  it('names the failing product fields', async () => {
    const { token } = await t.account('Alt Bad Couriers');
    const res = await t.submit('/v1/manifests', { token, body: { manifest: 'ALT-4', products: [product(1), product(2, { quantity: 1.5, tax_id: 'abc', country_of_manufacture: 'ZZ' })] } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['products.1.country_of_manufacture', 'products.1.quantity', 'products.1.tax_id']);
  });

  it('replays a repeated upload with the same Idempotency-Key, byte for byte, instead of making a second manifest', async () => {
    const { token } = await t.account('Alt Retry Couriers');
    const key = randomUUID();
    const body = { manifest: 'ALT-5', products: [product(1)] };
    const first = await t.submit('/v1/manifests', { token, body, headers: { 'idempotency-key': key } });
    const again = await t.submit('/v1/manifests', { token, body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The first answer's bytes, word for word.
    expect(again.text).toBe(first.text);
    expect((await t.call('GET', '/v1/manifests', { token })).body.data).toHaveLength(1);
  });

  it('answers 404 for a manifest of another account', async () => {
    const a = await t.account('Alt Owner');
    const b = await t.account('Alt Other');
    await t.submit('/v1/manifests', { token: a.token, body: { manifest: 'ALT-6', products: [product(1)] } });
    expect((await t.call('GET', '/v1/manifests/ALT-6', { token: b.token })).status).toBe(404);
  });
});
