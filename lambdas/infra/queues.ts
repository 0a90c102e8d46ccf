import { SQSClient, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { QueueName } from '#catalog/types';
import { config } from '#shared/config';
import { traced } from './tracing';

/** Puts a message on a catalog queue, optionally delayed (SQS allows up to 15 minutes). */
export interface QueuePort {
  send(queue: QueueName, body: unknown, opts?: { delaySeconds?: number }): Promise<void>;
  /** Several messages at once (SQS takes ten per call). */
  sendBatch(queue: QueueName, bodies: unknown[]): Promise<void>;
}

export const maxQueueDelaySeconds = 900;

let sqs: SQSClient | undefined;

export const sqsQueues: QueuePort = {
  async send(queue, body, opts = {}) {
    const delay = Math.max(0, Math.min(maxQueueDelaySeconds, Math.round(opts.delaySeconds ?? 0)));
    sqs ??= traced(new SQSClient({}));
    await sqs.send(new SendMessageCommand({ QueueUrl: config.queueUrl(queue), MessageBody: JSON.stringify(body), DelaySeconds: delay }));
  },
  async sendBatch(queue, bodies) {
    sqs ??= traced(new SQSClient({}));
    for (let i = 0; i < bodies.length; i += 10) {
      const entries = bodies.slice(i, i + 10).map((b, k) => ({ Id: String(i + k), MessageBody: JSON.stringify(b) }));
      const res = await sqs.send(new SendMessageBatchCommand({ QueueUrl: config.queueUrl(queue), Entries: entries }));
      if (res.Failed?.length) throw new Error(`SQS refused ${res.Failed.length} of ${entries.length} messages`);
    }
  },
};

let current: QueuePort = sqsQueues;

export function queues(): QueuePort {
  return current;
}

/** The twin installs its persisted in-process queues here. */
export function useQueues(port: QueuePort): void {
  current = port;
}
