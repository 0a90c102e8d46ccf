import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eventIds, sqsRecords } from '../../../lambdas/workers/sqs-records';
import { pipelineTask } from '../../../lambdas/workers/pipeline/task';
import { useLogLines } from '../../support/logs';

const lines = useLogLines();
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
});
