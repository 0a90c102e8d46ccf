import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { items, submitPath } from '#support/manifests';
import { manualClock, useClock, useSystemClock } from '#infra/clock';

const t = useTwin();

function chunked(opts: { base?: string; total: number; perChunk: number; mawb?: string; totalItems?: number }) {
  const base = opts.base ?? randomUUID();
  const mawb = opts.mawb ?? `MAWB-${base.slice(0, 6)}`;
  const totalItems = opts.totalItems ?? opts.total * opts.perChunk;
  return {
    base,
    mawb,
    chunk: (n: number, over: Record<string, unknown> = {}) => ({
      mawbNumber: mawb,
      items: items(opts.perChunk, (n - 1) * opts.perChunk + 1),
      _chunk_metadata: { chunk_number: n, total_chunks: opts.total, base_idempotency_key: base, total_items: totalItems },
      ...over,
    }),
  };
}

describe('chunked mode', () => {
  it('tracks progress and answers the completing chunk with status complete and the batch id', async () => {
    const { token } = await t.account('Chunk Couriers');
    const up = chunked({ total: 3, perChunk: 4 });
    const c3 = await t.submit(submitPath(), { token, body: up.chunk(3) });
    expect(c3.status).toBe(202);
    expect(c3.body).toEqual({
      success: true,
      status: 'receiving',
      message: expect.any(String),
      chunk_number: 3,
      total_chunks: 3,
      progress: { received_chunks: 1, missing_chunks: [1, 2], percentage: 33, is_complete: false },
    });
    await t.submit(submitPath(), { token, body: up.chunk(1) });
    const status = await t.call('GET', `/v1/couriers/manifests/chunks/${up.base}/status`, { token });
    expect(status.body.data).toMatchObject({ manifest_number: up.mawb, status: 'receiving', progress: { total_chunks: 3, received_chunks: 2, missing_chunks: [2], percentage: 66 } });
    const missing = await t.call('POST', `/v1/couriers/manifests/chunks/${up.base}/retry-missing`, { token });
    expect(missing.body.data).toMatchObject({ manifest_number: up.mawb, missing_chunks: [2], missing_count: 1 });
    expect((await t.call('GET', '/v1/couriers/manifests', { token })).body.data).toHaveLength(0);
    const last = await t.submit(submitPath(), { token, body: up.chunk(2) });
    expect(last.status).toBe(202);
    expect(last.body).toMatchObject({
      status: 'complete',
      chunk_number: 2,
      progress: { received_chunks: 3, missing_chunks: [], percentage: 100, is_complete: true },
      manifest_number: up.mawb,
      batch_id: expect.stringMatching(/^BT/),
      idempotency_key: up.base,
      tracking: { items_count: 12 },
    });
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ batch_id: last.body.batch_id, status: 'pending', summary: { total_articles: 12 } });
  });

  it('takes a chunk sent twice once and answers the repeat with 200', async () => {
    const { token } = await t.account('Twice Couriers');
    const up = chunked({ total: 2, perChunk: 3 });
    await t.submit(submitPath(), { token, body: up.chunk(1) });
    const again = await t.submit(submitPath(), { token, body: up.chunk(1) });
    expect(again.status).toBe(200);
    expect(again.body.progress.received_chunks).toBe(1);
    const changed = await t.submit(submitPath(), { token, body: up.chunk(1, { items: items(3, 50) }) });
    expect(changed.status).toBe(409);
  });

  it('enters processing exactly once when every chunk arrives at the same time, twice', async () => {
    const { token } = await t.account('Storm Couriers');
    const up = chunked({ total: 5, perChunk: 6 });
    const all = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5].map((n) => t.submit(submitPath(), { token, body: up.chunk(n) }));
    const answers = await Promise.all(all);
    for (const a of answers) expect([200, 202, 409]).toContain(a.status);
    expect(answers.filter((a) => a.status === 202 && a.body.status === 'complete')).toHaveLength(1);
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].summary.total_articles).toBe(30);
  });

  it('refuses chunk metadata that disagrees with the first chunk', async () => {
    const { token } = await t.account('Mismatch Couriers');
    const up = chunked({ total: 3, perChunk: 2 });
    await t.submit(submitPath(), { token, body: up.chunk(1) });
    const other = chunked({ base: up.base, total: 4, perChunk: 2, mawb: up.mawb });
    const res = await t.submit(submitPath(), { token, body: other.chunk(2) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty(['_chunk_metadata.total_chunks']);
    const mawb = await t.submit(submitPath(), { token, body: up.chunk(2, { mawbNumber: 'OTHER' }) });
    expect(mawb.body.errors).toHaveProperty(['mawbNumber']);
  });

  it('validates chunk_number, total_chunks and the base key', async () => {
    const { token } = await t.account('Meta Couriers');
    const up = chunked({ total: 2, perChunk: 1 });
    const bad = (meta: Record<string, unknown>) => t.submit(submitPath(), { token, body: { ...up.chunk(1), _chunk_metadata: { ...up.chunk(1)._chunk_metadata, ...meta } } });
    expect((await bad({ chunk_number: 3 })).body.errors).toHaveProperty(['_chunk_metadata.chunk_number']);
    expect((await bad({ chunk_number: 0 })).body.errors).toHaveProperty(['_chunk_metadata.chunk_number']);
    expect((await bad({ total_chunks: 51 })).body.errors).toHaveProperty(['_chunk_metadata.total_chunks']);
    expect((await bad({ base_idempotency_key: 'abc' })).body.errors).toHaveProperty(['_chunk_metadata.base_idempotency_key']);
  });

  it('refuses the completing chunk when the items do not add up to total_items', async () => {
    const { token } = await t.account('Count Couriers');
    const up = chunked({ total: 2, perChunk: 3, totalItems: 7 });
    await t.submit(submitPath(), { token, body: up.chunk(1) });
    const last = await t.submit(submitPath(), { token, body: up.chunk(2) });
    expect(last.status).toBe(422);
    expect(last.body.errors).toHaveProperty(['_chunk_metadata.total_items']);
    expect((await t.call('GET', `/v1/couriers/manifests/chunks/${up.base}/status`, { token })).body.data.status).toBe('receiving');
  });

  it('expires an incomplete upload after 24 hours with a clear status', async () => {
    const { token } = await t.account('Late Couriers');
    const clock = manualClock();
    useClock(clock);
    try {
      const up = chunked({ total: 2, perChunk: 1 });
      await t.submit(submitPath(), { token, body: up.chunk(1) });
      clock.advance(24 * 3600_000 + 1000);
      const late = await t.submit(submitPath(), { token, body: up.chunk(2) });
      expect(late.status).toBe(410);
      expect(late.body.error).toBe('chunked_upload_expired');
      expect((await t.call('GET', `/v1/couriers/manifests/chunks/${up.base}/status`, { token })).body.data.status).toBe('expired');
    } finally {
      useSystemClock();
    }
  });

  it('keeps another account from reading an upload', async () => {
    const a = await t.account('Chunk Owner');
    const b = await t.account('Chunk Reader');
    const up = chunked({ total: 2, perChunk: 1 });
    await t.submit(submitPath(), { token: a.token, body: up.chunk(1) });
    expect((await t.call('GET', `/v1/couriers/manifests/chunks/${up.base}/status`, { token: b.token })).status).toBe(404);
  });
});
