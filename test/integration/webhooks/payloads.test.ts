/**
 * Every event the twin publishes in the integration suite is held to its declared payload
 * (lambdas/http/webhooks/event-payloads.ts, through openapi.json's webhooks): test/support/twin.ts
 * collects what breaks it and fails the file after its tests. These show the check sees a bad
 * event and lets a good one and an internal one pass.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';

const t = useTwin();
const envelope = (type: string, data: unknown) => ({ id: `evt_${type}`, type, created_at: '2026-12-07T10:15:00.000Z', account_id: 1, data });
const manifest = { manifest_number: 'MAN-1', batch_id: 'bat_1', mawb_number: '123-45678901' };
const processed = { ...manifest, summary: { total_products: 1 } };

// What these tests publish on purpose is not the suite's to report.
afterEach(() => void t.eventProblems.splice(0));

describe("the integration suite's check of published events", () => {
  it('reports an event whose data breaks its schema, naming the event and the field', async () => {
    await t.twin.jobs.publish([envelope('manifest.processed', { ...processed, manifest_id: 'MAN-1', status: 'completed' })]);
    expect(t.eventProblems).toHaveLength(1);
    expect(t.eventProblems[0]).toMatch(/manifest\.processed.*additional/);
  });

  it('reports a field of the wrong type', async () => {
    await t.twin.jobs.publish([envelope('manifest.processing_completed', { ...manifest, run_id: 'run_1', covers_all: 'yes', pages: 1, started_at: '2026-12-07T10:00:00.000Z', finished_at: '2026-12-07T10:01:00.000Z' })]);
    expect(t.eventProblems.join('\n')).toMatch(/covers_all/);
  });

  it('lets an event that keeps its schema pass, and an internal event no subscription can name', async () => {
    await t.twin.jobs.publish([envelope('manifest.processed', processed), envelope('manifest.submitted', { anything: true })]);
    expect(t.eventProblems).toEqual([]);
  });
});
