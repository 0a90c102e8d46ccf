import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eventIds, sqsRecords } from '#workers/sqs-records';
import { pipelineTask } from '#workers/pipeline/task';
import { logger } from '#shared/logger';
import { useLogLines } from '#support/logs';

const lines = useLogLines();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** What a service deep in a worker's work logs, knowing nothing of the record it works for. */
async function serviceWork(what: string, ms = 0) {
  await sleep(ms);
  logger.warn(what, { attempt: 1 });
}
const event = (...bodies: string[]): SQSEvent => ({
  Records: bodies.map((body, i) => ({ messageId: `m${i}`, body, attributes: { ApproximateReceiveCount: '1' } }) as SQSRecord),
});

describe("the workers' log lines", () => {
  it("say which task ran on which batch, run, stage and page, and how long it took", async () => {
    const handler = pipelineTask('stage-page', async (input: { batchId: string; runId: string; stage: string; page: number }) => input.page * 2);
    await expect(handler({ batchId: 'BT1', runId: 'r1', stage: 'ai', page: 3 })).resolves.toBe(6);
    expect(lines).toEqual([expect.objectContaining({ level: 'INFO', message: 'pipeline task', task: 'stage-page', batchId: 'BT1', runId: 'r1', stage: 'ai', page: 3, ms: expect.any(Number) })]);
  });

  it("name the batch of a pipeline task that failed, with the error, and still fail it", async () => {
    const handler = pipelineTask('finish', async (_input: { batchId: string; runId: string }) => Promise.reject(new Error('storage unavailable')));
    await expect(handler({ batchId: 'BT2', runId: 'r2' })).rejects.toThrow('storage unavailable');
    expect(lines).toEqual([expect.objectContaining({ level: 'ERROR', message: 'pipeline task failed', task: 'finish', batchId: 'BT2', runId: 'r2', error: expect.objectContaining({ message: 'storage unavailable' }) })]);
  });

  it("name the event and the batch of a bus record whose work failed, and only ids of the body", async () => {
    const body = { detail: { id: 'evt_1', type: 'manifest.submitted', data: { batch_id: 'BT3', consignee_name: 'Ana Gómez' } } };
    const handler = sqsRecords('pipeline start failed', async () => Promise.reject(new Error('no state machine')), { ids: eventIds });
    await handler(event(JSON.stringify(body)));
    expect(lines).toEqual([expect.objectContaining({ level: 'ERROR', message: 'pipeline start failed', messageId: 'm0', eventId: 'evt_1', eventType: 'manifest.submitted', batchId: 'BT3' })]);
    expect(JSON.stringify(lines)).not.toContain('Ana Gómez');
  });

  it('log a record whose body is not JSON by its message id alone', async () => {
    const handler = sqsRecords('fan-out failed', async (r) => JSON.parse(r.body), { ids: eventIds });
    await handler(event('not json'));
    expect(lines).toEqual([expect.objectContaining({ level: 'ERROR', message: 'fan-out failed', messageId: 'm0' })]);
    expect(lines[0]).not.toHaveProperty('batchId');
  });

  it("put the batch id on every line logged while a worker works on a record, the services' lines too", async () => {
    const body = { detail: { id: 'evt_4', type: 'manifest.submitted', data: { batch_id: 'BT4' } } };
    const handler = sqsRecords('pipeline start failed', () => serviceWork('state machine slow'), { ids: eventIds });
    await handler(event(JSON.stringify(body)));
    expect(lines).toEqual([expect.objectContaining({ level: 'WARN', message: 'state machine slow', attempt: 1, messageId: 'm0', eventId: 'evt_4', batchId: 'BT4' })]);
  });

  it("keep each record's batch id to its own lines when a worker works records side by side", async () => {
    const body = (batch: string) => JSON.stringify({ detail: { id: `evt_${batch}`, type: 'manifest.submitted', data: { batch_id: batch } } });
    // The first record logs last: its line comes after the second record's scope began and ended.
    const handler = sqsRecords('fan-out failed', (r) => serviceWork(`worked ${r.messageId}`, r.messageId === 'm0' ? 30 : 0), { ids: eventIds, inParallel: true });
    await handler(event(body('BT5'), body('BT6')));
    expect(lines.map((l) => [l.message, l.batchId, l.messageId])).toEqual([
      ['worked m1', 'BT6', 'm1'],
      ['worked m0', 'BT5', 'm0'],
    ]);
  });

  it("put the batch, run, stage and page on every line a pipeline task's work logs", async () => {
    const handler = pipelineTask('stage-page', async (_input: { batchId: string; runId: string; stage: string; page: number }) => serviceWork('tax authority slow'));
    await handler({ batchId: 'BT7', runId: 'r7', stage: 'webservices', page: 2 });
    expect(lines[0]).toMatchObject({ message: 'tax authority slow', task: 'stage-page', batchId: 'BT7', runId: 'r7', stage: 'webservices', page: 2 });
  });

  it("carry the invocation's request id on the twin, under the name Lambda prints it with", async () => {
    const handler = sqsRecords('tracking poll failed', () => serviceWork('carrier slow'));
    await handler(event('{}'), { awsRequestId: 'req-twin-1' } as Context);
    expect(lines[0]).toMatchObject({ message: 'carrier slow', function_request_id: 'req-twin-1', messageId: 'm0' });
  });

  it("put the record's ids on the lines of a child logger too", async () => {
    const child = logger.createChild({ persistentKeys: { component: 'carrier' } });
    // A child prints to a console of its own: captured here as `useLogLines` captures the logger's.
    (child as unknown as { console: { warn(text: string): void } }).console.warn = (text) => void lines.push(JSON.parse(text));
    const handler = sqsRecords('fan-out failed', async () => child.warn('from a child'), { ids: eventIds });
    await handler(event(JSON.stringify({ detail: { id: 'evt_9', data: { batch_id: 'BT9' } } })));
    expect(lines[0]).toMatchObject({ message: 'from a child', component: 'carrier', batchId: 'BT9', messageId: 'm0' });
  });

  it('leave no key of a finished record on the lines logged after it', async () => {
    const handler = sqsRecords('fan-out failed', () => serviceWork('inside'), { ids: eventIds });
    await handler(event(JSON.stringify({ detail: { id: 'evt_8', data: { batch_id: 'BT8' } } })));
    logger.warn('outside');
    expect(lines[1]).toMatchObject({ message: 'outside' });
    expect(lines[1]).not.toHaveProperty('batchId');
    expect(lines[1]).not.toHaveProperty('messageId');
  });
});
