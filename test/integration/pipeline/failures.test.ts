import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, manifest, submitForBatch, submitPath } from '#support/manifests';
import { useEvents, type DomainEvent } from '#infra/events';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { tableClassifier, useTariffClassifier } from '#infra/tariff/classifier-port';

const t = useTwin();
const seen: DomainEvent[] = [];
const clock = manualClock(new Date('2026-11-21T12:00:00Z'));
beforeEach(() => {
  seen.length = 0;
  useClock(clock);
  useEvents({ publish: async (events) => (seen.push(...events), t.twin.jobs.publish(events)) });
});
afterEach(() => {
  useSystemClock();
  useTariffClassifier(tableClassifier);
});

/** Runs due jobs, moving the clock past retry back-offs, until nothing is left. */
async function settle() {
  for (let i = 0; i < 200; i++) {
    if ((await t.twin.jobs.runDue()) === 0) {
      if ((await t.twin.jobs.pending()).length === 0) return;
      clock.advance(30_000);
    }
  }
  throw new Error('the pipeline did not settle');
}

describe('pipeline failures and corrections', () => {
  it('retries a failing stage with back-off, then marks the manifest failed and emits processing_failed', async () => {
    const { token } = await t.account('Failing Couriers');
    let calls = 0;
    useTariffClassifier({ classify: async () => (calls++, Promise.reject(new Error('model unavailable'))) });
    const batchId = await submitForBatch(t, token, manifest(1));
    await settle();
    expect(calls).toBe(3);
    const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
    expect(status.body.data).toMatchObject({ status: 'failed', error: 'model unavailable' });
    // Web services runs beside ai: it completed, or the failure stopped it (as a Parallel state stops its other branch).
    const steps = Object.fromEntries(status.body.data.pipeline_steps.map((s: { key: string; status: string }) => [s.key, s.status]));
    expect(steps).toMatchObject({ classification: 'completed', ai: 'failed', calculations: 'pending' });
    expect(['completed', 'processing']).toContain(steps.webservices);
    expect(seen.filter((e) => e.type === 'manifest.processing_failed')).toHaveLength(1);
    expect(seen.find((e) => e.type === 'manifest.processing_failed')?.data).toMatchObject({ batch_id: batchId, stage: 'ai' });
  });

  it('recovers when a transient error clears before the retries run out', async () => {
    const { token } = await t.account('Flaky Couriers');
    let calls = 0;
    useTariffClassifier({ classify: async (input) => (++calls === 1 ? Promise.reject(new Error('throttled')) : tableClassifier.classify(input)) });
    const batchId = await submitForBatch(t, token, manifest(1));
    await settle();
    expect((await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data.status).toBe('completed');
  });

  it('re-runs a shipment after its tax id is corrected, and the new tax id reaches the results', async () => {
    const { token } = await t.account('Correcting Couriers');
    const batchId = await submitForBatch(t, token, manifest(0, { items: [item(5, { consigneeIdType: 'CUIL', consigneeIdNumber: '20123456780' })] }));
    await settle();
    const before = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
    expect(before.body.data.products[0].tax_id_valid).toBe(false);
    const fix = await t.call('PUT', '/v1/couriers/client-info', { token, body: { awb_number: 'AWB0000005', tax_id: '20-12345678-6' } });
    expect(fix.status).toBe(200);
    await settle();
    const after = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
    expect(after.body.data.products[0]).toMatchObject({ tax_id_valid: true, tax_id: '20-12345678-6' });
    expect((await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data.run_id).toMatch(/^fix-/);
  });
});
