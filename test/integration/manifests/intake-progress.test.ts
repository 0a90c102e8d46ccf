import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { manifest, submitPath } from '#support/manifests';
import { typicalItemsPerSecond } from '#core/manifests/intake-progress';

const t = useTwin();

interface Intake {
  items_received: number;
  items_written: number;
  estimated_seconds_left: number;
}

describe('the status of a large submission while its items are written', () => {
  it('shows 4,000 items received, the count written as it grows, and an estimate, instead of a bare "queued, 0"', async () => {
    const { token } = await t.account(`Large intake ${Math.random()}`);
    const key = randomUUID();
    const res = await t.call('POST', submitPath(), { token, body: manifest(4000), headers: { 'idempotency-key': key } });
    expect(res.status).toBe(202);
    const answer = async () => t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token });
    const status = async () => (await answer()).body as { status: string; intake: Intake };

    const before = await status();
    expect(before).toMatchObject({ status: 'queued', intake: { items_received: 4000, items_written: 0, estimated_seconds_left: Math.ceil(4000 / typicalItemsPerSecond) } });

    // Follow the status while the worker writes, until the intake ends. The pause only paces the
    // reads under the status group's 120 a minute (a 429 is skipped); the loop ends on the event.
    let done = false;
    const writing = t.intake().then(() => (done = true));
    const seen: Intake[] = [];
    while (!done) {
      const s = await answer();
      if (s.status === 200 && s.body.status === 'queued') seen.push(s.body.intake);
      await pause(400);
    }
    await writing;
    const midway = seen.filter((s) => s.items_written > 0 && s.items_written < 4000);
    expect(midway.length, JSON.stringify(seen.slice(-5))).toBeGreaterThan(0);
    for (const s of midway) {
      expect(s.items_written % 500).toBe(0);
      expect(s.estimated_seconds_left).toBeGreaterThan(0);
    }
    const counts = seen.map((s) => s.items_written);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));

    const number = res.body.manifest_number as string;
    const pipeline = await t.call('GET', `/v1/couriers/manifests/${number}/pipeline-status`, { token });
    expect(pipeline.status).toBe(200);

    const after = await status();
    expect(after.intake).toEqual({ items_received: 4000, items_written: 4000, estimated_seconds_left: 0 });
  }, 180_000);

  it('answers pipeline-status of a manifest still being written with a 404 that points to the submission status', async () => {
    const { token } = await t.account(`Written later ${Math.random()}`);
    const body = manifest(600);
    const res = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': randomUUID() } });
    expect(res.status).toBe(202);
    // The worker creates the batch (hidden, receiving) first: let one intake job start, and ask while it writes.
    const writing = t.intake();
    let done = false;
    void writing.then(() => (done = true));
    const path = `/v1/couriers/manifests/${res.body.manifest_number}/pipeline-status`;
    let answer = await t.call('GET', path, { token });
    while (answer.status === 404 && !/still being written/.test(answer.body.message) && !done) {
      await pause(100); // paces the reads under the status group's limit; the loop ends on the event
      answer = await t.call('GET', path, { token });
    }
    await writing;
    expect(answer.body.message).toMatch(/^Manifest \S+ is still being written; it shows here once every item is\. Meanwhile GET \/api\/v1\/couriers\/\{courier\}\/webhook\/\{Idempotency-Key\}\/status/);
  }, 120_000);
});
