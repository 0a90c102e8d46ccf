import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sqsRecords } from '#workers/sqs-records';

const event = (...bodies: string[]): SQSEvent => ({
  Records: bodies.map((body, i) => ({ messageId: `m${i}`, body, attributes: { ApproximateReceiveCount: '1' } }) as SQSRecord),
});

describe('an SQS worker', () => {
  it('reports the record that failed and lets the others succeed', async () => {
    const handler = sqsRecords('test failed', async (r) => JSON.parse(r.body));
    await expect(handler(event('{}', 'not json', '[]'))).resolves.toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
  });

  it('answers a batch where every record failed with every record, without throwing', async () => {
    const handler = sqsRecords('test failed', async (r) => JSON.parse(r.body));
    await expect(handler(event('x', 'y'))).resolves.toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }, { itemIdentifier: 'm1' }] });
  });

  it('runs the records one after another unless asked to run them together', async () => {
    const runs = async (inParallel: boolean) => {
      let running = 0;
      let most = 0;
      const handler = sqsRecords(
        'test failed',
        async () => {
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
        },
        { inParallel },
      );
      await handler(event('a', 'b', 'c'));
      return most;
    };
    expect(await runs(false)).toBe(1);
    expect(await runs(true)).toBe(3);
  });
});
