import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, submitPath } from '#support/manifests';
import { blobs } from '#infra/blobs';
import { getIntakeItems, putIntakeItems } from '#services/pipeline/pages-store';
import { prepare, stagePage } from '#services/pipeline/run';
import { getBatch } from '#infra/entities/manifests';

/**
 * How a run plans its pages: the first run of a new batch from the files intake wrote beside the
 * items (no read of every item back from the table), any other run from the table.
 */
const t = useTwin();

async function submitAndWrite(token: string, items: unknown[]) {
  const key = randomUUID();
  const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: `MAWB-${key.slice(0, 8)}`, items }, headers: { 'idempotency-key': key } });
  expect(res.status).toBe(202);
  // Intake only: the items are written, the run is requested, nothing is processed yet.
  await t.twin.jobs.runDue(['manifestIntake']);
  return key;
}

async function products(token: string, key: string) {
  await t.settle();
  const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
  const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/download?format=json`, { token });
  expect(res.status).toBe(200);
  return res.body.data.products as { item_key: string; fob_value_usd?: number; fob_usd?: number }[];
}

describe('planning a run', () => {
  it('plans a new batch\'s first run from the items intake wrote, not from a read of the table', async () => {
    const { token } = await t.account('Planner One');
    const key = await submitAndWrite(token, [item(1), item(2), item(3)]);
    const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
    // The submission's own segment: its id is the Idempotency-Key, and so is the run's.
    const written = await getIntakeItems(batchId, key, key);
    expect(written?.map((it) => it.itemKey)).toHaveLength(3);
    // Change what the file says about one item: the products follow the file, so the file was read.
    const changed = written!.map((it, k) => (k === 0 ? { ...it, data: { ...it.data, fobValueUsd: 77.5 } } : it));
    await putIntakeItems(batchId, key, key, changed);
    const out = await products(token, key);
    expect(out).toHaveLength(3);
    const first = out.find((p) => p.item_key === written![0].itemKey)!;
    expect(JSON.stringify(first)).toContain('77.5');
  });

  it('reads the items from the table when a segment\'s file is missing', async () => {
    const { token } = await t.account('Planner Two');
    const key = await submitAndWrite(token, [item(1), item(2), item(3)]);
    const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
    const written = await getIntakeItems(batchId, key, key);
    expect(written).toHaveLength(3);
    await blobs().delete(`pipeline/${batchId}/${key}/intake/${encodeURIComponent(key)}.json`);
    expect(await getIntakeItems(batchId, key, key)).toBeUndefined();
    const out = await products(token, key);
    expect(out.map((p) => p.item_key).sort()).toEqual(written!.map((it) => it.itemKey).sort());
  });

  it('keeps the pages already counted when its prepare runs again (a crash after the pages were queued, before the step ended)', async () => {
    const { token, accountId } = await t.account('Planner Three');
    const key = await submitAndWrite(token, [item(1), item(2), item(3)]);
    const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
    const runId = (await getBatch(batchId))!.lastRunId!;
    // The first prepare queued the pages and one ran; its step was never marked done, so the
    // queued prepare runs again, and the page with it.
    const first = await prepare({ accountId, batchId, runId });
    expect(first.pages).toEqual([0]);
    await stagePage({ accountId, batchId, runId, stage: 'classification', page: 0 });
    expect((await getBatch(batchId))!.pipeline!.stages.classification.done).toBe(1);
    await prepare({ accountId, batchId, runId });
    expect((await getBatch(batchId))!.pipeline!.stages.classification.done).toBe(1);
    await t.settle();
    const status = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body;
    expect(status).toMatchObject({ status: 'completed', progress: 100 });
  });
});
