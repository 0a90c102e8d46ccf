import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, items, manifest, submitPath } from '#support/manifests';
import { adminToken } from '#support/twin';
import { run } from '#bin/cli';

const t = useTwin();

async function newBatch(token: string, n = 3, over: Record<string, unknown> = {}) {
  const key = randomUUID();
  const body = manifest(n, over);
  await t.submit(submitPath(), { token, body, headers: { 'idempotency-key': key } });
  const status = await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token });
  return { batchId: status.body.batch_id as string, body };
}

const decisions = async (token: string, manifestNumber: string, batchId: string, query = '') =>
  t.call('GET', `/v1/couriers/manifests/${manifestNumber}/batches/${batchId}/decisions${query}`, { token });

describe('update mode', () => {
  it('resolves CREATE, UPDATE, SKIP and REJECT per spec 3.5 and keeps every decision with its reason', async () => {
    const { token } = await t.account('Update Couriers');
    const { batchId, body } = await newBatch(token, 3);
    const update = {
      mawbNumber: body.mawbNumber,
      batchId,
      items: [
        item(1),
        item(2, { fobValueUsd: 20 }),
        item(9),
        item(10, { itemIdempotencyKey: 'line-9' }),
      ],
    };
    const res = await t.submit(submitPath(), { token, body: update });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', mode: 'update', batch_id: batchId, tracking: { batch_id: batchId, items_count: 4 } });
    const log = await decisions(token, body.mawbNumber, batchId);
    expect(log.status).toBe(200);
    const second = log.body.data.filter((d: { submission: string }) => d.submission === res.body.idempotency_key);
    expect(second.map((d: { item_key: string; decision: string }) => [d.item_key, d.decision])).toEqual([
      ['line-1', 'SKIP'],
      ['line-2', 'UPDATE'],
      ['line-9', 'CREATE'],
      ['line-9', 'REJECT'],
    ]);
    expect(second[3]).toMatchObject({ awb_number: 'AWB0000010', reason: 'duplicate idempotency key in payload', item_index: 3 });
    expect(log.body.meta).toMatchObject({ total: 7, counts: { create: 4, update: 1, skip: 1, reject: 1 } });
  });

  it('leaves items missing from the payload untouched (additive)', async () => {
    const { token } = await t.account('Additive Couriers');
    const { batchId, body } = await newBatch(token, 3);
    await t.submit(submitPath(), { token, body: { mawbNumber: body.mawbNumber, batchId, items: [item(104)] } });
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data[0].summary.total_articles).toBe(4);
  });

  it('reads a change as CREATE when the item has no itemIdempotencyKey (derived key)', async () => {
    const { token } = await t.account('Derived Couriers');
    const noKey = (i: number, over = {}) => ({ ...item(i, over), itemIdempotencyKey: undefined });
    const first = manifest(0, { items: [noKey(201)] });
    const key = randomUUID();
    await t.submit(submitPath(), { token, body: first, headers: { 'idempotency-key': key } });
    const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id;
    await t.submit(submitPath(), { token, body: { mawbNumber: first.mawbNumber, batchId, items: [noKey(201), noKey(201, { consigneeName: 'Changed' })] } });
    const log = await decisions(token, first.mawbNumber, batchId);
    expect(log.body.data.slice(1).map((d: { decision: string }) => d.decision)).toEqual(['SKIP', 'CREATE']);
  });

  it('ignores formatting differences that normalization removes (SKIP)', async () => {
    const { token } = await t.account('Normalize Couriers');
    const { batchId, body } = await newBatch(token, 1);
    const same = item(1, { consigneeEmail: '  BUYER1@Example.com ', originCountry: 'cn', hsCode: '610910.00', fobValueUsd: 12.50001 });
    await t.submit(submitPath(), { token, body: { mawbNumber: body.mawbNumber, batchId, items: [same] } });
    const log = await decisions(token, body.mawbNumber, batchId);
    expect(log.body.data[1].decision).toBe('SKIP');
  });

  it('rejects an AWB that belongs to another partner account', async () => {
    const a = await t.account('Team A Couriers');
    const b = await t.account('Team B Couriers');
    await newBatch(a.token, 1, { items: [item(1, { awbNumber: 'SHARED-AWB-1' })] });
    const { batchId, body } = await newBatch(b.token, 1);
    await t.submit(submitPath(), { token: b.token, body: { mawbNumber: body.mawbNumber, batchId, items: [item(5, { awbNumber: 'SHARED-AWB-1' })] } });
    const log = await decisions(b.token, body.mawbNumber, batchId);
    expect(log.body.data[1]).toMatchObject({ decision: 'REJECT', reason: 'AWB belongs to another team' });
  });

  it('answers 422 unknown_batch for a batch of another account or none at all', async () => {
    const a = await t.account('Owner Couriers');
    const b = await t.account('Intruder Couriers');
    const { batchId, body } = await newBatch(a.token, 1);
    const foreign = await t.submit(submitPath(), { token: b.token, body: { mawbNumber: body.mawbNumber, batchId, items: [item(2)] } });
    expect(foreign.status).toBe(422);
    expect(foreign.body).toEqual({ success: false, error: 'unknown_batch', message: expect.any(String), batch_id: batchId });
    const none = await t.submit(submitPath(), { token: b.token, body: { mawbNumber: 'M', batchId: 'BT00000000000000000000', items: [item(2)] } });
    expect(none.body).toMatchObject({ error: 'unknown_batch', batch_id: 'BT00000000000000000000' });
  });

  it('answers 423 manifest_closed for a closed batch, and accepts again once reopened', async () => {
    const { token } = await t.account('Closed Couriers');
    const broker = await t.account('Broker Staff', { kind: 'broker' });
    const { batchId, body } = await newBatch(token, 1);
    expect((await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token })).status).toBe(403);
    const close = await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token });
    expect(close.status).toBe(200);
    expect(close.body.data).toMatchObject({ batch_id: batchId, closed: true, closed_at: expect.stringMatching(/Z$/) });
    const refused = await t.submit(submitPath(), { token, body: { mawbNumber: body.mawbNumber, batchId, items: [item(2)] } });
    expect(refused.status).toBe(423);
    expect(refused.body).toEqual({
      success: false,
      error: 'manifest_closed',
      message: expect.stringContaining('reopen'),
      closed_at: close.body.data.closed_at,
      manifest_number: body.mawbNumber,
      batch_id: batchId,
    });
    expect((await t.call('POST', `/v1/couriers/batches/${batchId}/reopen`, { token: broker.token })).body.data.closed).toBe(false);
    expect((await t.submit(submitPath(), { token, body: { mawbNumber: body.mawbNumber, batchId, items: [item(2)] } })).status).toBe(202);
  });

  it('pages through the decision log', async () => {
    const { token } = await t.account('Paging Couriers');
    const { batchId, body } = await newBatch(token, 0, { items: items(7) });
    const page2 = await decisions(token, body.mawbNumber, batchId, '?per_page=3&page=2');
    expect(page2.body.data.map((d: { item_key: string }) => d.item_key)).toEqual(['line-4', 'line-5', 'line-6']);
    expect(page2.body.meta).toMatchObject({ current_page: 2, per_page: 3, total: 7, last_page: 3 });
    expect((await decisions(token, body.mawbNumber, batchId, '?per_page=1001')).status).toBe(422);
    expect((await decisions(token, 'OTHER-MANIFEST', batchId)).status).toBe(404);
  });

  it('closes and reopens a batch from the CLI', async () => {
    const { token } = await t.account('CLI Batch Couriers');
    const { batchId } = await newBatch(token, 1);
    let out = '';
    const io = { env: { DESPACHO_URL: t.twin.apiUrl, DESPACHO_TOKEN: adminToken }, stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) } };
    expect(await run(['batches', 'close', batchId], io)).toBe(0);
    expect(out).toMatch(new RegExp(`batch ${batchId} .*closed at`));
    expect(await run(['batches', 'reopen', batchId], io)).toBe(0);
    expect(out).toContain('Batch reopened.');
    expect(await run(['batches', 'close', 'BT00000000000000000000'], io)).toBe(1);
  });
});
