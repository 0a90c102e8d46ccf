import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSBatchResponse } from 'aws-lambda';
import { defineEntity, isConditionalFailure, key, service } from '#infra/entities/entity';
import type { QueuePort } from '#infra/queues';
import type { TimerPort } from '#infra/timers';
import { busEnvelope, type DomainEvent, type EventPort } from '#infra/events';
import type { EventRuleDef, QueueDef, QueueName, WorkerDef } from '#catalog/types';
import { now } from '#infra/clock';
import { logger } from '#shared/logger';

/**
 * The twin's SQS, EventBridge and Scheduler in one: every message is a job item in the table with
 * the time it becomes visible. One dispatcher per table runs due jobs (its drains never overlap):
 * a success deletes the job (a job sent once under a fixed id is kept as `done` instead, so the
 * id stays taken: see `sendOnce`); a failure makes it visible again after the queue's visibility
 * timeout, as in SQS, and after `maxReceiveCount` receipts moves it to the dead state (the DLQ).
 * A crash mid-job leaves the job due, so it runs again at the next start.
 */
const jobs = defineEntity({
  model: { entity: 'twinJob', version: '1', service },
  attributes: {
    id: { type: 'string', required: true },
    queue: { type: 'string', required: true },
    body: { type: 'string', required: true },
    receives: { type: 'number', default: 0 },
    state: { type: ['ready', 'dead', 'done'] as const, required: true },
    visibleAt: { type: 'string', required: true },
    lastError: { type: 'string' },
    /** Sent with `sendOnce`: kept as `done` after it ran. */
    once: { type: 'boolean' },
    /** When a `done` job may go (epoch seconds; the table's TTL attribute). */
    ttl: { type: 'number' },
  },
  indexes: {
    byId: { pk: key('pk', 'TWINJOB#${id}'), sk: key('sk', 'JOB') },
    byVisibility: { index: 'gsi1', pk: key('gsi1pk', 'TWINJOBS#${state}'), sk: key('gsi1sk', '${visibleAt}#${id}') },
  },
} as const);

/** How long a `done` job keeps its id taken. */
const doneJobSeconds = 7 * 24 * 3600;

type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface JobRunnerOptions {
  queues: Record<string, QueueDef>;
  workers: WorkerDef[];
  eventRules: EventRuleDef[];
  loadWorker: (w: WorkerDef) => Promise<WorkerHandler>;
  /** Jobs run at once, as Lambda runs several batches side by side (default 8). */
  concurrency?: number;
  /** Sees every event published, before the bus takes it (the test suite holds each to its schema). */
  checkEvent?: (e: DomainEvent) => void;
}

export class TwinJobs implements QueuePort, TimerPort, EventPort {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(private readonly opts: JobRunnerOptions) {}

  async send(queue: QueueName, body: unknown, opts: { delaySeconds?: number } = {}) {
    await this.enqueue(queue, body, new Date(now().getTime() + (opts.delaySeconds ?? 0) * 1000));
  }

  async sendBatch(queue: string, bodies: unknown[]) {
    const visibleAt = now().toISOString();
    if (bodies.length === 0) return;
    await jobs()
      .put(bodies.map((body) => ({ id: randomUUID(), queue, body: JSON.stringify(body), state: 'ready' as const, visibleAt })))
      .go();
    this.wake(visibleAt);
  }

  /**
   * Enqueues under a fixed id: a second call with the same id adds nothing (a step that must run
   * once), before the job ran and after: a job sent this way is kept as `done` (for a week) when it
   * succeeds rather than deleted, so a join that two closes reach one after the other still runs
   * once (a deleted job would free its id for the later close).
   */
  async sendOnce(queue: string, body: unknown, id: string, opts: { delaySeconds?: number } = {}) {
    const visibleAt = new Date(now().getTime() + (opts.delaySeconds ?? 0) * 1000).toISOString();
    try {
      await jobs().create({ id, queue, body: JSON.stringify(body), state: 'ready', visibleAt, once: true }).go();
      this.wake(visibleAt);
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
    }
  }

  async at(when: Date, queue: QueueName, body: unknown) {
    await this.enqueue(queue, body, when);
  }

  async publish(events: Parameters<EventPort['publish']>[0]) {
    for (const e of events) {
      this.opts.checkEvent?.(e);
      for (const rule of this.opts.eventRules.filter((r) => r.eventTypes.includes(e.type))) {
        await this.enqueue(rule.queue, busEnvelope(e), now());
      }
    }
  }

  private async enqueue(queue: string, body: unknown, visibleAt: Date) {
    await jobs()
      .create({ id: randomUUID(), queue, body: JSON.stringify(body), state: 'ready', visibleAt: visibleAt.toISOString() })
      .go();
    this.wake(visibleAt);
  }

  /** Polls for due jobs until stopped; a job sent meanwhile wakes it at once (`wake`). */
  start(intervalMs = 200) {
    this.intervalMs = intervalMs;
    this.timer = setTimeout(this.tick, intervalMs);
  }

  private intervalMs = 200;
  private ticking = false;
  private readonly tick = () => {
    this.ticking = true;
    this.runDue()
      .catch((err) => logger.error('job dispatcher failed', { error: err as Error }))
      .finally(() => {
        this.ticking = false;
        if (this.timer) this.timer = setTimeout(this.tick, this.intervalMs);
      });
  };

  /**
   * A job became due: an idle dispatcher looks now rather than at its next poll, as an SQS long
   * poll answers when a message arrives (a drain under way finds it when a worker looks again).
   */
  private wake(visibleAt: Date | string) {
    if (!this.timer || this.ticking || new Date(visibleAt).getTime() > now().getTime()) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.tick, 0);
  }

  async stop() {
    const t = this.timer;
    this.timer = undefined;
    if (t) clearTimeout(t);
    await this.running?.catch(() => undefined);
  }

  /**
   * Runs every job visible now (of `only` these queues, when given); returns how many ran. Tests
   * call it after moving the clock, or to run one stage of the work (intake before processing).
   */
  runDue(only?: readonly string[]): Promise<number> {
    this.running = (this.running ?? Promise.resolve(0)).catch(() => 0).then(() => this.drain(only));
    return this.running;
  }

  /**
   * Runs due jobs, `concurrency` at a time, until none is due and none is running. A worker that
   * frees takes the next due job at once (as Lambda's pollers do), so one slow job does not hold
   * back the jobs queued meanwhile (a pipeline stage's close while the other stage of its step
   * still runs). A job that ran in this drain is not taken again in the state it ran in (a query
   * can still list a job another worker just finished).
   */
  private async drain(only?: readonly string[]): Promise<number> {
    const concurrency = this.opts.concurrency ?? 8;
    type Due = { id: string; queue: string; body: string; receives?: number; visibleAt: string; once?: boolean };
    const version = (job: Due) => `${job.visibleAt}|${job.receives ?? 0}`;
    const waiting: Due[] = [];
    const running = new Set<string>();
    const runningQueues = new Map<string, number>();
    const done = new Map<string, string>();
    let ran = 0;
    let fetching: Promise<void> | undefined;
    const refill = () =>
      (fetching ??= jobs()
        .query.byVisibility({ state: 'ready' })
        .lte({ visibleAt: now().toISOString(), id: '\uffff' })
        .go(only ? { pages: 'all' } : { limit: concurrency * 4 })
        .then((due) => {
          for (const job of due.data) {
            if (only && !only.includes(job.queue)) continue;
            if (!running.has(job.id) && done.get(job.id) !== version(job) && !waiting.some((w) => w.id === job.id)) waiting.push(job);
          }
        })
        .finally(() => (fetching = undefined)));
    // Resolved each time a job finishes: a worker with nothing to do waits for it, then looks again.
    let notify = () => {};
    let finished = new Promise<void>((r) => (notify = r));
    const jobFinished = () => {
      const n = notify;
      finished = new Promise<void>((r) => (notify = r));
      n();
    };
    const worker = async (): Promise<void> => {
      for (;;) {
        const eligible = (w: { queue: string }) => this.hasRoom(w.queue, runningQueues);
        // Jobs held back by their queue's maximum concurrency do not hold back other queues' jobs.
        if (!waiting.some(eligible)) await refill();
        const index = waiting.findIndex(eligible);
        const job = index < 0 ? undefined : waiting.splice(index, 1)[0];
        if (!job) {
          if (running.size === 0) return;
          await finished;
          continue;
        }
        running.add(job.id);
        runningQueues.set(job.queue, (runningQueues.get(job.queue) ?? 0) + 1);
        try {
          if (await this.runOne(job)) ran++;
        } finally {
          running.delete(job.id);
          runningQueues.set(job.queue, runningQueues.get(job.queue)! - 1);
          done.set(job.id, version(job));
          jobFinished();
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return ran;
  }

  /** Whether a job of `queue` may start: its worker's maximum concurrency, as the SQS event source applies it. */
  private hasRoom(queue: string, runningQueues: Map<string, number>): boolean {
    const max = this.opts.workers.find((w) => w.queue === queue)?.maxConcurrency;
    return max === undefined || (runningQueues.get(queue) ?? 0) < max;
  }

  private async runOne(job: { id: string; queue: string; body: string; receives?: number; visibleAt: string; once?: boolean }): Promise<boolean> {
    const def = this.opts.queues[job.queue];
    const worker = this.opts.workers.find((w) => w.queue === job.queue);
    const receives = (job.receives ?? 0) + 1;
    const lease = new Date(now().getTime() + (def?.visibilityTimeoutSeconds ?? 30) * 1000).toISOString();
    let error: string | undefined;
    if (!worker) {
      error = `No worker consumes queue ${job.queue}`;
    } else {
      try {
        const handler = await this.opts.loadWorker(worker);
        const res = await handler(sqsEvent(job, receives), lambdaContext(worker.id));
        if (res && res.batchItemFailures.length > 0) error = 'The worker reported the message as failed';
      } catch (err) {
        error = (err as Error).message;
      }
    }
    if (!error) {
      if (job.once) await jobs().patch({ id: job.id }).set({ state: 'done', visibleAt: job.visibleAt, body: '{}', ttl: Math.floor(now().getTime() / 1000) + doneJobSeconds }).go();
      else await jobs().delete({ id: job.id }).go();
      return true;
    }
    logger.warn('job failed', { queue: job.queue, jobId: job.id, receives, error });
    const dead = receives >= (def?.maxReceiveCount ?? 3);
    await jobs()
      .patch({ id: job.id })
      .set({ receives, visibleAt: lease, lastError: error, ...(dead ? { state: 'dead' as const } : {}) })
      .go();
    return true;
  }

  /** Jobs that exhausted their receives (the twin's dead-letter queues). */
  async dead(): Promise<{ id: string; queue: string; body: string; lastError?: string }[]> {
    const res = await jobs().query.byVisibility({ state: 'dead' }).go({ pages: 'all' });
    return res.data;
  }

  async pending(): Promise<{ id: string; queue: string; body: string; visibleAt: string; receives?: number }[]> {
    const res = await jobs().query.byVisibility({ state: 'ready' }).go({ pages: 'all' });
    return res.data;
  }
}

function sqsEvent(job: { id: string; queue: string; body: string }, receives: number): SQSEvent {
  return {
    Records: [
      {
        messageId: job.id,
        receiptHandle: job.id,
        body: job.body,
        attributes: {
          ApproximateReceiveCount: String(receives),
          SentTimestamp: String(Date.now()),
          SenderId: 'twin',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:local:000000000000:${job.queue}`,
        awsRegion: 'local',
      },
    ],
  };
}

export function lambdaContext(functionName: string, requestId: string = randomUUID()): Context {
  const deadline = Date.now() + 30_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'twin',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
