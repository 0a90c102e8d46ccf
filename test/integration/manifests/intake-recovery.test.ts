import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { useTwin } from '#support/twin';
import { item, items, manifest, submitPath } from '#support/manifests';
import { documentClient } from '#infra/dynamo';
import { manualClock, useClock, useSystemClock } from '#infra/clock';

/**
 * Intake through failures: a batch appears whole or not at all, a write that dies half-way is
 * resumed from the stored payload, and what cannot be written is reported, never lost.
 */
const t = useTwin();

afterEach(() => {
  vi.restoreAllMocks();
  useSystemClock();
});

const statusOf = async (token: string, key: string) => (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body;

/** Every route a partner could reach the batch or its items by, as they answer now. */
async function seen(token: string, manifestNumber: string, awb: string) {
  return {
    listed: (await t.call('GET', '/v1/couriers/manifests', { token })).body.data.length,
    status: (await t.call('GET', `/v1/couriers/manifests/${manifestNumber}/pipeline-status`, { token })).status,
    batchStatus: (await t.call('POST', '/v1/couriers/manifests/batch-status', { token, body: { manifests: [manifestNumber] } })).body.data[0].status,
    canEdit: (await t.call('POST', '/v1/couriers/client-info/can-edit', { token, body: { awb_number: awb } })).status,
    alternative: (await t.call('GET', `/v1/manifests/${manifestNumber}`, { token })).status,
  };
}

const hidden = { listed: 0, status: 404, batchStatus: 'not_found', canEdit: 404, alternative: 404 };

describe('intake through failures', () => {
  it('resumes a write that died half-way, shows nothing of it meanwhile, and ends with every item once', async () => {
    const { token } = await t.account('Resume Couriers');
    const clock = manualClock(new Date());
    useClock(clock);
    const key = randomUUID();
    const body = manifest(600);
    expect((await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } })).status).toBe(202);
    // The table dies after 10 calls of 25 items: 250 of 600 items are written, then the job fails.
    const client = documentClient();
    const send = client.send.bind(client);
    let writes = 0;
    vi.spyOn(client, 'send').mockImplementation(((command: unknown) => {
      if (command instanceof BatchWriteCommand && ++writes > 10) return Promise.reject(new Error('connection reset'));
      return send(command as never);
    }) as never);
    await t.twin.jobs.runDue(['manifestIntake']);
    expect(writes).toBeGreaterThan(10);
    expect(await statusOf(token, key)).toMatchObject({ status: 'queued', batch_id: null });
    expect(await seen(token, body.mawbNumber, 'AWB0000001')).toEqual(hidden);
    // A retry of the client is answered at once from the acceptance, not with a 409.
    const retry = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(200);

    vi.restoreAllMocks();
    clock.advance(901_000); // the queue's visibility timeout: SQS hands the message out again
    await t.intake();
    const status = await statusOf(token, key);
    expect(status).toMatchObject({ status: 'queued', batch_id: expect.stringMatching(/^BT/), decisions: { create: 600, update: 0, skip: 0, reject: 0 } });
    const list = (await t.call('GET', '/v1/couriers/manifests', { token })).body.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'pending', summary: { total_articles: 600, total_awbs: 600 } });
    const log = await t.call('GET', `/v1/couriers/manifests/${body.mawbNumber}/batches/${status.batch_id}/decisions?per_page=1000`, { token });
    expect(log.body.meta).toMatchObject({ total: 600, counts: { create: 600 } });
    expect(new Set(log.body.data.map((d: { item_key: string }) => d.item_key)).size).toBe(600);
  });

  it('keeps a chunked upload hidden until every chunk is written', async () => {
    const { token } = await t.account('Hidden Chunks Couriers');
    const base = randomUUID();
    const mawb = `MAWB-${base.slice(0, 6)}`;
    const chunk = (n: number) => ({ mawbNumber: mawb, items: items(4, (n - 1) * 4 + 1), _chunk_metadata: { chunk_number: n, total_chunks: 3, base_idempotency_key: base, total_items: 12 } });
    await t.submit(submitPath(), { token, body: chunk(1) });
    await t.submit(submitPath(), { token, body: chunk(2) });
    expect(await seen(token, mawb, 'AWB0000001')).toEqual(hidden);
    // The last chunk arrives: received, but until its items are written the batch stays hidden.
    const last = await t.call('POST', submitPath(), { token, body: chunk(3) });
    expect(last.body.status).toBe('complete');
    expect(await seen(token, mawb, 'AWB0000001')).toEqual(hidden);
    expect((await statusOf(token, base)).status).toBe('queued');
    await t.intake();
    const visible = await seen(token, mawb, 'AWB0000001');
    expect(visible).toMatchObject({ listed: 1, status: 200, batchStatus: 'pending', canEdit: 200, alternative: 200 });
    expect((await t.call('GET', '/v1/couriers/manifests', { token })).body.data[0].summary.total_articles).toBe(12);
  });

  it('reports a batch closed between the answer and the write as failed, with the reason, and changes nothing', async () => {
    const { token } = await t.account('Closed Meanwhile Couriers');
    const first = randomUUID();
    const body = manifest(2);
    await t.submit(submitPath(), { token, body, headers: { 'idempotency-key': first } });
    const batchId = (await statusOf(token, first)).batch_id;
    const key = randomUUID();
    const update = await t.call('POST', submitPath(), { token, body: { mawbNumber: body.mawbNumber, batchId, items: [item(1, { fobValueUsd: 99 })] }, headers: { 'idempotency-key': key } });
    expect(update.status).toBe(202);
    expect((await t.call('POST', `/v1/couriers/batches/${batchId}/close`, {})).status).toBe(200);
    await t.intake();
    expect(await statusOf(token, key)).toMatchObject({ status: 'failed', failure: expect.stringContaining('closed by the broker') });
    const log = await t.call('GET', `/v1/couriers/manifests/${body.mawbNumber}/batches/${batchId}/decisions`, { token });
    expect(log.body.meta.total).toBe(2);
  });

  it('refuses at arrival a chunk after which the counts can no longer add up, naming total_items', async () => {
    const { token } = await t.account('Counts Couriers');
    const base = randomUUID();
    const meta = (n: number) => ({ chunk_number: n, total_chunks: 3, base_idempotency_key: base, total_items: 5 });
    // 4 items in the first chunk leave 1 item for 2 chunks that must hold at least one each.
    const greedy = await t.submit(submitPath(), { token, body: { mawbNumber: 'MAWB-COUNT', items: items(4), _chunk_metadata: meta(1) } });
    expect(greedy.status).toBe(422);
    expect(greedy.body.errors).toHaveProperty(['_chunk_metadata.total_items']);
    const fits = await t.submit(submitPath(), { token, body: { mawbNumber: 'MAWB-COUNT', items: items(3), _chunk_metadata: meta(1) } });
    expect(fits.status).toBe(202);
    const over = await t.submit(submitPath(), { token, body: { mawbNumber: 'MAWB-COUNT', items: items(2, 10), _chunk_metadata: meta(2) } });
    expect(over.status).toBe(422);
    expect((await t.call('GET', `/v1/couriers/manifests/chunks/${base}/status`, { token })).body.data).toMatchObject({ received_items: 3, progress: { received_chunks: 1 } });
  });

  it('takes 20 chunks racing with fresh Idempotency-Keys without a single 409', async () => {
    const { token } = await t.account('Race Couriers');
    const base = randomUUID();
    const chunk = (n: number) => ({ mawbNumber: `MAWB-${base.slice(0, 6)}`, items: items(5, (n - 1) * 5 + 1), _chunk_metadata: { chunk_number: n, total_chunks: 20, base_idempotency_key: base, total_items: 100 } });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.call('POST', submitPath(), { token, body: chunk(i + 1), headers: { 'idempotency-key': randomUUID() } })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    expect(answers.filter((a) => a.body.status === 'complete')).toHaveLength(1);
    await t.intake();
    const list = (await t.call('GET', '/v1/couriers/manifests', { token })).body.data;
    expect(list).toHaveLength(1);
    expect(list[0].summary.total_articles).toBe(100);
  });
});
