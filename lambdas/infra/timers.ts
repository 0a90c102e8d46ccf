import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { createHash } from 'node:crypto';
import type { QueueName } from '#catalog/types';
import { config } from '#shared/config';
import { now } from './clock';
import { maxQueueDelaySeconds, queues } from './queues';
import { traced } from './tracing';

/**
 * Durable timers: deliver a message to a catalog queue at a given time. Up to 15 minutes away an
 * SQS delay does it; beyond, a one-time EventBridge Scheduler schedule (deleted after it fires).
 * Nothing waits in memory, so a timer survives any restart. A schedule is named by what it
 * delivers, where and when, so setting the same timer again (a redelivered message re-arming it)
 * leaves the one schedule there: Scheduler refuses the second with ConflictException.
 */
export interface TimerPort {
  at(when: Date, queue: QueueName, body: unknown): Promise<void>;
}

let scheduler: SchedulerClient | undefined;

/** arn:aws:sqs:<region>:<account>:<name> from https://sqs.<region>.amazonaws.com/<account>/<name>. */
export function queueArnFromUrl(url: string): string {
  const u = new URL(url);
  const [, account, name] = u.pathname.split('/');
  const region = /sqs\.([a-z0-9-]+)\./.exec(u.hostname)?.[1] ?? process.env.AWS_REGION;
  return `arn:aws:sqs:${region}:${account}:${name}`;
}

export const awsTimers: TimerPort = {
  async at(when, queue, body) {
    const delaySeconds = Math.ceil((when.getTime() - now().getTime()) / 1000);
    if (delaySeconds <= maxQueueDelaySeconds) {
      await queues().send(queue, body, { delaySeconds });
      return;
    }
    scheduler ??= traced(new SchedulerClient({}));
    const name = `t-${createHash('sha256').update(`${queue}|${when.toISOString()}|${JSON.stringify(body)}`).digest('hex').slice(0, 48)}`;
    const created = scheduler.send(
      new CreateScheduleCommand({
        Name: name,
        GroupName: config.schedulerGroup(),
        ScheduleExpression: `at(${when.toISOString().slice(0, 19)})`,
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: {
          Arn: queueArnFromUrl(config.queueUrl(queue)),
          RoleArn: config.schedulerRoleArn(),
          Input: JSON.stringify(body),
        },
      }),
    );
    await created.catch((err: Error) => {
      if (err.name !== 'ConflictException') throw err;
    });
  },
};

let current: TimerPort = awsTimers;

export function timers(): TimerPort {
  return current;
}

export function useTimers(port: TimerPort): void {
  current = port;
}
