import { describe, expect, it } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { useManualClock } from '#support/clock';
import { domainEvent } from '#infra/events';
import { TwinJobs } from '#twin/jobs';
import { useTwin } from '#support/twin';

const t = useTwin();
const clock = useManualClock('2026-11-20T12:00:00Z');

const queues = { work: { visibilityTimeoutSeconds: 30, maxReceiveCount: 3 } };

/** A runner over the twin's table with one test worker that records what it receives. */
function runner(behaviour: (body: unknown) => void = () => undefined) {
  const seen: unknown[] = [];
  const jobs = new TwinJobs({
    queues,
    workers: [{ id: 'Work', handler: 'unused', summary: 'test', queue: 'work' as never }],
    eventRules: [{ id: 'Orders', eventTypes: ['order.created'], queue: 'work' as never }],
    loadWorker: async () => async (event: SQSEvent) => {
      for (const r of event.Records) {
        const body = JSON.parse(r.body);
        seen.push(body);
        behaviour(body);
      }
    },
  });
  return { jobs, seen };
}

describe('the twin queues, timers and events', () => {
  it('delivers a message to the worker of its queue', async () => {
    const { jobs, seen } = runner();
    await jobs.send('work' as never, { n: 1 });
    expect(await jobs.runDue()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    expect(await jobs.pending()).toEqual([]);
  });

  it('holds a delayed message until its time', async () => {
    const { jobs, seen } = runner();
    await jobs.send('work' as never, { n: 2 }, { delaySeconds: 60 });
    expect(await jobs.runDue()).toBe(0);
    clock.advance(60_000);
    expect(await jobs.runDue()).toBe(1);
    expect(seen).toEqual([{ n: 2 }]);
  });

  it('fires a timer set 24 hours ahead only after 24 hours', async () => {
    const { jobs, seen } = runner();
    await jobs.at(new Date(clock.now().getTime() + 24 * 3600_000), 'work' as never, { n: 3 });
    clock.advance(24 * 3600_000 - 1000);
    expect(await jobs.runDue()).toBe(0);
    clock.advance(1000);
    expect(await jobs.runDue()).toBe(1);
    expect(seen).toEqual([{ n: 3 }]);
  });

  it('runs a message sent once under a fixed id once, even when the same id is sent again after it ran', async () => {
    const { jobs, seen } = runner();
    await jobs.sendOnce('work', { n: 'join' }, 'join-step-2');
    await jobs.sendOnce('work', { n: 'join' }, 'join-step-2');
    expect(await jobs.runDue()).toBe(1);
    // The second close of a Parallel step reaches the join after the first one's job ran.
    await jobs.sendOnce('work', { n: 'join' }, 'join-step-2');
    expect(await jobs.runDue()).toBe(0);
    expect(seen).toEqual([{ n: 'join' }]);
    expect(await jobs.pending()).toEqual([]);
    expect(await jobs.dead()).toEqual([]);
  });

  it('keeps pending work across a restart of the runner', async () => {
    const first = runner();
    await first.jobs.send('work' as never, { n: 4 }, { delaySeconds: 5 });
    await first.jobs.stop();
    clock.advance(5000);
    const second = runner();
    expect(await second.jobs.runDue()).toBe(1);
    expect(second.seen).toEqual([{ n: 4 }]);
  });

  it('retries a failing message after the visibility timeout and dead-letters it after maxReceiveCount', async () => {
    const { jobs, seen } = runner(() => {
      throw new Error('boom');
    });
    await jobs.send('work' as never, { n: 5 });
    expect(await jobs.runDue()).toBe(1);
    expect(await jobs.runDue()).toBe(0);
    clock.advance(30_000);
    expect(await jobs.runDue()).toBe(1);
    clock.advance(30_000);
    expect(await jobs.runDue()).toBe(1);
    clock.advance(30_000);
    expect(await jobs.runDue()).toBe(0);
    expect(seen).toHaveLength(3);
    const dead = await jobs.dead();
    expect(dead.map((d) => JSON.parse(d.body))).toContainEqual({ n: 5 });
    expect(dead[0].lastError).toBe('boom');
  });

  it('routes a published event to the queues of the rules that match it, as EventBridge does', async () => {
    const { jobs, seen } = runner();
    const e = domainEvent('order.created', 7, { id: 1 });
    await jobs.publish([e, domainEvent('order.cancelled', 7, { id: 1 })]);
    expect(await jobs.runDue()).toBe(1);
    expect(seen).toEqual([{ version: '0', id: e.id, 'detail-type': 'order.created', source: 'despacho', time: e.created_at, detail: e }]);
  });

  it('runs a message sent to an idle dispatcher at once, not at its next poll, and a delayed one only when due', async () => {
    const { jobs, seen } = runner();
    jobs.start(60_000);
    try {
      await jobs.send('work' as never, { n: 'later' }, { delaySeconds: 60 });
      const sent = performance.now();
      await jobs.send('work' as never, { n: 'now' });
      while (!seen.some((b) => (b as { n: string }).n === 'now') && performance.now() - sent < 5_000) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toContainEqual({ n: 'now' });
      expect(performance.now() - sent).toBeLessThan(5_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(seen).not.toContainEqual({ n: 'later' });
    } finally {
      await jobs.stop();
    }
    clock.advance(60_000);
    expect(await jobs.runDue()).toBeGreaterThanOrEqual(1);
    expect(seen).toContainEqual({ n: 'later' });
  });
});
