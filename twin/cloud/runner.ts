import { DeleteScheduleCommand, GetScheduleCommand, ListSchedulesCommand, type GetScheduleCommandOutput } from '@aws-sdk/client-scheduler';
import { DescribeExecutionCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { StateMachine } from 'aws-local-stepfunctions';
import { allStates, forInterpreter, taskError, type Asl } from './asl';
import type { Clients } from './provision';
import { FunctionError, type Functions } from './sandbox';
import type { Deployment } from './template';

/*
 * What AWS itself does between the services, played by the lane: Lambda's SQS pollers (one per
 * event source mapping, with its batch size, partial-batch failures and maximum concurrency),
 * EventBridge Scheduler firing its schedules at their time, and Step Functions executing the
 * executions started in moto, in aws-local-stepfunctions, with each Lambda task invoking the
 * template's function. The lane's clock (`now()`) is the real one plus an offset the tests move.
 */

export interface LaneFault {
  at: string;
  what: string;
}

export interface ExecutionRecord {
  executionArn: string;
  input: unknown;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  output?: unknown;
  error?: string;
  cause?: string;
}

interface Mapping {
  functionName: string;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  reportFailures: boolean;
  maxConcurrency: number;
  active: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A message an event source mapping handed its function, and what came of it. */
export interface HandledMessage {
  functionName: string;
  messageId: string;
  body: string;
  /** `deleted`: the call succeeded for it; `failed`: it stays on the queue for the visibility timeout. */
  outcome: 'deleted' | 'failed';
  /** The lane's time when the outcome was known. */
  at: string;
}

export class Runner {
  readonly faults: LaneFault[] = [];
  readonly executions = new Map<string, ExecutionRecord>();
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly fired = new Set<string>();
  private readonly mappings: Mapping[];
  private readonly stateMachines: { arn: string; definition: Asl }[];
  /** Invocations of each function by an event source, for tests: name -> count. */
  readonly polled = new Map<string, number>();
  /** The messages handed to a function, in order (the latest 10,000: a lane may run for hours), for tests (`handled`). */
  readonly handledMessages: HandledMessage[] = [];
  private readonly waiters: { match: (m: HandledMessage) => boolean; resolve: (m: HandledMessage) => void }[] = [];

  constructor(
    private readonly d: Deployment,
    private readonly c: Clients,
    private readonly fns: Functions,
    private readonly opts: { pollMs?: number } = {},
  ) {
    this.mappings = d.resources('AWS::Lambda::EventSourceMapping').map((r) => {
      const p = d.properties(r);
      const queueArn = String(p.EventSourceArn);
      if (!queueArn.startsWith('arn:aws:sqs:')) throw new Error(`event source mapping ${r.logicalId}: the lane polls SQS only, not ${queueArn}`);
      return {
        // A function's name, `name:alias`, or an ARN (the stacks map the live alias): the function's name.
        functionName: /:function:([^:]+)/.exec(String(p.FunctionName))?.[1] ?? String(p.FunctionName).split(':')[0],
        queueArn,
        queueUrl: this.queueUrl(queueArn),
        batchSize: Number(p.BatchSize ?? 10),
        reportFailures: ((p.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures'),
        maxConcurrency: Number(p.ScalingConfig?.MaximumConcurrency ?? 5),
        active: 0,
      };
    });
    this.stateMachines = d.resources('AWS::StepFunctions::StateMachine').map((r) => ({ arn: d.physicalId(r), definition: JSON.parse(d.properties(r).DefinitionString) as Asl }));
  }

  /** The lane's time: the real clock moved by the offset the sandboxes share. */
  now(): Date {
    return new Date(Date.now() + this.fns.clock[0]);
  }

  /**
   * The first message, handled already or from now on, that `match` accepts: resolves when the
   * runner knows its outcome (deleted after its function's call, or left for the visibility
   * timeout). Tests wait on this event, not on a wall-clock deadline, so a loaded machine only
   * makes them slower, and a queue's other messages (another scenario's delayed retries) do not count.
   */
  handled(match: (m: HandledMessage) => boolean): Promise<HandledMessage> {
    const seen = this.handledMessages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  private record(m: Mapping, messages: Message[], failed: (msg: Message) => boolean) {
    for (const msg of messages) {
      const handled: HandledMessage = { functionName: m.functionName, messageId: msg.MessageId!, body: msg.Body ?? '', outcome: failed(msg) ? 'failed' : 'deleted', at: this.now().toISOString() };
      this.handledMessages.push(handled);
      if (this.handledMessages.length > 10_000) this.handledMessages.shift();
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        if (this.waiters[i].match(handled)) this.waiters.splice(i, 1)[0].resolve(handled);
      }
    }
  }

  queueUrl(arn: string): string {
    return this.d.queueUrlOf(arn);
  }

  start(): void {
    if (this.loops.length) return;
    for (const m of this.mappings) for (let i = 0; i < m.maxConcurrency; i++) this.loops.push(this.pollQueue(m));
    this.loops.push(this.every(() => this.fireSchedules()));
    this.loops.push(this.every(() => this.runExecutions()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled(this.loops);
  }

  /** What came due and the lane knowingly does not play (a schedule calling CloudFormation). */
  readonly notPlayed: { at: string; what: string }[] = [];

  private fault(what: string) {
    this.faults.push({ at: this.now().toISOString(), what });
  }

  private async every(tick: () => Promise<void>) {
    while (!this.stopped) {
      await tick().catch((err: Error) => this.fault(`runner: ${err.message}`));
      await sleep(this.opts.pollMs ?? 250);
    }
  }

  // ----- Lambda's SQS event source -----

  private async pollQueue(m: Mapping) {
    while (!this.stopped) {
      let messages: Message[] = [];
      try {
        const res = await this.c.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: m.queueUrl, MaxNumberOfMessages: Math.min(10, m.batchSize), WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }),
        );
        messages = res.Messages ?? [];
      } catch (err) {
        if (!this.stopped) this.fault(`receive from ${m.queueUrl}: ${(err as Error).message}`);
      }
      if (!messages.length) {
        await sleep(this.opts.pollMs ?? 250);
        continue;
      }
      m.active++;
      await this.deliver(m, messages).finally(() => m.active--);
    }
  }

  private async deliver(m: Mapping, messages: Message[]) {
    const event = {
      Records: messages.map((msg) => ({
        messageId: msg.MessageId,
        receiptHandle: msg.ReceiptHandle,
        body: msg.Body,
        attributes: msg.Attributes ?? {},
        messageAttributes: msg.MessageAttributes ?? {},
        md5OfBody: msg.MD5OfBody,
        eventSource: 'aws:sqs',
        eventSourceARN: m.queueArn,
        awsRegion: this.d.endpoints.region,
      })),
    };
    this.polled.set(m.functionName, (this.polled.get(m.functionName) ?? 0) + 1);
    let failed = new Set<string>();
    try {
      const result = (await this.fns.invoke(m.functionName, event)) as { batchItemFailures?: { itemIdentifier: string }[] } | null;
      if (m.reportFailures && result?.batchItemFailures) failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
    } catch (err) {
      // A function error: the whole batch stays on the queue and comes back after the visibility timeout.
      if (!(err instanceof FunctionError)) this.fault(`${m.functionName}: ${(err as Error).message}`);
      this.record(m, messages, () => true);
      return;
    }
    const done = messages.filter((msg) => !failed.has(msg.MessageId!));
    const notDeleted = new Set<string>(failed);
    if (done.length) {
      const res = await this.c.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: m.queueUrl, Entries: done.map((msg, i) => ({ Id: String(i), ReceiptHandle: msg.ReceiptHandle! })) }));
      if (res.Failed?.length) this.fault(`delete from ${m.queueUrl}: ${res.Failed.map((f) => f.Message).join('; ')}`);
      for (const f of res.Failed ?? []) notDeleted.add(done[Number(f.Id)].MessageId!);
    }
    this.record(m, messages, (msg) => notDeleted.has(msg.MessageId!));
  }

  // ----- EventBridge Scheduler -----

  private async fireSchedules() {
    let token: string | undefined;
    do {
      const page = await this.c.scheduler.send(new ListSchedulesCommand({ NextToken: token }));
      token = page.NextToken;
      for (const s of page.Schedules ?? []) {
        const schedule = await this.c.scheduler.send(new GetScheduleCommand({ Name: s.Name!, GroupName: s.GroupName }));
        await this.maybeFire(schedule);
      }
    } while (token);
  }

  private async maybeFire(s: GetScheduleCommandOutput) {
    if (s.State === 'DISABLED') return;
    const expr = s.ScheduleExpression ?? '';
    const id = `${s.GroupName}/${s.Name}`;
    const zone = s.ScheduleExpressionTimezone ?? 'UTC';
    if (!['UTC', 'Etc/UTC'].includes(zone)) {
      if (!this.fired.has(`${id}|zone`)) this.fault(`schedule ${id}: time zone ${zone}, which the lane does not evaluate`);
      this.fired.add(`${id}|zone`);
      return;
    }
    const now = this.now();
    let due: string | undefined;
    const at = /^at\((.*)\)$/.exec(expr);
    if (at) {
      const when = parseAt(at[1]);
      if (!when) {
        // EventBridge Scheduler refuses such a schedule when it is created (ValidationException).
        if (!this.fired.has(`${id}|invalid`)) this.fault(`schedule ${id}: ${expr} is not a valid at() expression (yyyy-mm-ddThh:mm:ss); AWS refuses it`);
        this.fired.add(`${id}|invalid`);
        return;
      }
      if (when <= now) due = `${id}|${when.toISOString()}`;
    } else {
      const cron = /^cron\((.*)\)$/.exec(expr);
      const minute = cron ? cronMinuteDue(cron[1], now) : undefined;
      if (minute === null) {
        if (!this.fired.has(`${id}|invalid`)) this.fault(`schedule ${id}: ${expr}, which the lane does not evaluate`);
        this.fired.add(`${id}|invalid`);
        return;
      }
      if (minute) due = `${id}|${minute}`;
    }
    if (!due || this.fired.has(due)) return;
    this.fired.add(due);
    const target = s.Target!;
    if (target.Arn?.startsWith(notPlayedTarget)) {
      // The daily drift check calls CloudFormation, which the lane has not: noted, not played.
      this.notPlayed.push({ at: now.toISOString(), what: `schedule ${id}: ${target.Arn}` });
      return;
    }
    if (!target.Arn?.startsWith('arn:aws:sqs:')) return this.fault(`schedule ${id}: target ${target.Arn}, which the lane does not deliver to`);
    await this.c.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl(target.Arn), MessageBody: target.Input ?? '{}' }));
    if (at && s.ActionAfterCompletion === 'DELETE') await this.c.scheduler.send(new DeleteScheduleCommand({ Name: s.Name!, GroupName: s.GroupName }));
  }

  // ----- Step Functions -----

  private async runExecutions() {
    for (const sm of this.stateMachines) {
      const res = await this.c.sfn.send(new ListExecutionsCommand({ stateMachineArn: sm.arn, statusFilter: 'RUNNING' }));
      for (const e of res.executions ?? []) {
        if (this.executions.has(e.executionArn!)) continue;
        const described = await this.c.sfn.send(new DescribeExecutionCommand({ executionArn: e.executionArn }));
        const record: ExecutionRecord = { executionArn: e.executionArn!, input: JSON.parse(described.input ?? '{}'), status: 'RUNNING' };
        this.executions.set(e.executionArn!, record);
        void this.execute(sm.definition, record);
      }
    }
  }

  private async execute(definition: Asl, record: ExecutionRecord) {
    const machine = new StateMachine(forInterpreter(definition) as never);
    const handlers: Record<string, (input: any) => Promise<unknown>> = {};
    for (const [name, state] of allStates(definition)) {
      if (state.Type !== 'Task') continue;
      const invokeApi = state.Resource!.includes(':states:::lambda:invoke');
      const arn = invokeApi ? String(state.Parameters!.FunctionName) : state.Resource!;
      const fn = this.fns.byArn(arn);
      handlers[name] = async (input) => {
        try {
          const result = await this.fns.invoke(fn.name, invokeApi ? input.Payload : input);
          return invokeApi ? { ExecutedVersion: '$LATEST', Payload: result, StatusCode: 200 } : result;
        } catch (err) {
          if (!(err instanceof FunctionError)) throw err;
          throw taskError(err.lambda);
        }
      };
    }
    try {
      const run = machine.run(record.input as never, { overrides: { taskResourceLocalHandlers: handlers as never } });
      record.output = await run.result;
      record.status = 'SUCCEEDED';
    } catch (err) {
      record.status = 'FAILED';
      record.error = (err as Error).name;
      record.cause = (err as Error).message;
    }
  }
}

/** A Scheduler universal target the lane does not play: CloudFormation, for the stacks' daily drift check (lib/drift.ts). */
const notPlayedTarget = 'arn:aws:scheduler:::aws-sdk:cloudformation:';

/** `yyyy-mm-ddThh:mm:ss`, a real date and time, as EventBridge Scheduler takes it. */
export function parseAt(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const same = date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && date.getUTCHours() === h && date.getUTCMinutes() === mi && date.getUTCSeconds() === s;
  return same ? date : undefined;
}

/**
 * The minute a `cron(...)` schedule fires in, when `now` falls in it; undefined when not; null for
 * an expression the lane does not evaluate. The lane reads the forms the stacks write: a minute
 * and an hour field (`0`, `*`, `*\/15`, `0/15`, `0,30`) with `*` or `?` in every other field.
 */
export function cronMinuteDue(fields: string, now: Date): string | undefined | null {
  const [minute, hour, ...rest] = fields.trim().split(/\s+/);
  if (hour === undefined || rest.length !== 4 || rest.some((f) => f !== '*' && f !== '?')) return null;
  const minuteMatches = cronFieldMatches(minute, now.getUTCMinutes());
  const hourMatches = cronFieldMatches(hour, now.getUTCHours());
  if (minuteMatches === null || hourMatches === null) return null;
  if (!minuteMatches || !hourMatches) return undefined;
  return now.toISOString().slice(0, 16);
}

/** Whether one numeric cron field (`5`, `*`, `*\/15`, `0/15`, `0,30`) takes `value`; null when the lane does not read it. */
function cronFieldMatches(field: string, value: number): boolean | null {
  const parts = field.split(',');
  if (!parts.every((part) => /^(\*|\d+)(\/\d+)?$/.test(part))) return null;
  return parts.some((part) => {
    const [base, step] = part.split('/');
    const start = base === '*' ? 0 : Number(base);
    if (!step) return base === '*' || value === start;
    return value >= start && (value - start) % Number(step) === 0;
  });
}
