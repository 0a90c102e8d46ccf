import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { StateMachine } from 'aws-local-stepfunctions';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stageNames } from '#core/pipeline/stages';
import { useEvents, type DomainEvent } from '#infra/events';
import { usePipelineRunner, type PipelineRunInput } from '#infra/state-machine';
import { tableClassifier, useTariffClassifier } from '#infra/tariff/classifier-port';
import { manifest, submitPath } from '#support/manifests';
import { allStates, dataFlowProblems, declaredTypes, forInterpreter, noRetryWaits, synthesizedPipeline, taskBindings, type Asl, type TaskCall } from '#support/state-machine';
import { useTwin } from '#support/twin';

const aslValidator = createRequire(import.meta.url)('asl-validator') as (
  definition: unknown,
  opts?: { checkPaths?: boolean; checkArn?: boolean },
) => { isValid: boolean; errors: { message?: string }[]; errorsText: (separator?: string) => string };

/*
 * The state machine lib/pipeline.ts synthesizes, checked twice: asl-validator on the definition,
 * then runs of it in aws-local-stepfunctions with every Task bound to the real handler of its
 * function, against the test twin (its DynamoDB Local table and blob store), for manifests
 * submitted through the API. A field a state reads that the state before did not give fails
 * the run (the interpreter, like Step Functions, fails a path that points to nothing).
 */

const t = useTwin();
let definition: Asl;
let handlers: Record<string, string>;
const calls: TaskCall[] = [];
const runs: Promise<unknown>[] = [];
const seen: DomainEvent[] = [];

/** Starts each run the API asks for as an execution of the synthesized definition. */
async function execute(input: PipelineRunInput): Promise<unknown> {
  const machine = new StateMachine(forInterpreter(definition) as never);
  const run = machine.run(JSON.parse(JSON.stringify(input)), { overrides: { taskResourceLocalHandlers: (await taskBindings(definition, handlers, calls)) as never, retryIntervalOverrides: noRetryWaits(definition) } });
  return run.result;
}

beforeAll(() => {
  ({ definition, handlers } = synthesizedPipeline());
});
beforeEach(() => {
  calls.length = 0;
  runs.length = 0;
  seen.length = 0;
  useEvents({ publish: async (events) => (seen.push(...events), t.twin.jobs.publish(events)) });
  usePipelineRunner({ start: async (input) => void runs.push(execute(input)) });
});
afterEach(() => useTariffClassifier(tableClassifier));

/** Submits a manifest and runs the twin's queues (intake, the pipeline's start) and the executions they start until nothing is left. */
async function submitAndRun(token: string, body: unknown): Promise<{ batchId: string; outcomes: PromiseSettledResult<unknown>[] }> {
  const key = randomUUID();
  expect((await t.submit(submitPath(), { token, body, headers: { 'idempotency-key': key } })).status).toBe(202);
  const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
  await t.settle();
  const outcomes = await Promise.allSettled(runs);
  await t.settle();
  return { batchId, outcomes };
}

/** How a run ended: undefined when it succeeded, else its error as Step Functions names it and the message. */
const failure = (o: PromiseSettledResult<unknown>) => {
  if (o.status === 'fulfilled') return undefined;
  const error = ((o.reason as Error)?.cause ?? o.reason) as Error;
  return `${error?.name}: ${error?.message}`;
};

describe('the synthesized manifest pipeline', () => {
  it('is a valid Amazon States Language definition for asl-validator', () => {
    const result = aslValidator(definition, { checkPaths: true, checkArn: true });
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('binds every Task state to a pipeline handler, each stage a Distributed Map over the pages', () => {
    const tasks = allStates(definition).filter(([, s]) => s.Type === 'Task');
    expect(tasks.length).toBeGreaterThanOrEqual(2 + 2 * stageNames.length + 1);
    expect(new Set(Object.values(handlers))).toEqual(new Set(['workers/pipeline/prepare', 'workers/pipeline/stage-page', 'workers/pipeline/stage-done', 'workers/pipeline/finish', 'workers/pipeline/failed']));
    const maps = allStates(definition).filter(([, s]) => s.Type === 'Map');
    expect(maps.map(([name]) => name).sort()).toEqual(stageNames.map((s) => `${s}Pages`).sort());
    for (const [, map] of maps) expect(map.ItemProcessor?.ProcessorConfig?.Mode).toBe('DISTRIBUTED');
  });

  it('gives every task the fields its handler declares, and reads no field that the state before may leave out', async () => {
    const declared = await declaredTypes([...new Set(Object.values(handlers))], { module: 'infra/state-machine', typeName: 'PipelineRunInput' });
    expect(declared.handlers['workers/pipeline/prepare'].output.has('pages')).toBe(true);
    expect(dataFlowProblems(definition, handlers, declared)).toEqual([]);
  }, 60_000);

  it('takes a two-page manifest from Prepare through every stage to Finish, each task given the fields its handler reads', async () => {
    const { token } = await t.account('State Machine Couriers');
    const { batchId, outcomes } = await submitAndRun(token, manifest(501));
    expect(outcomes.map(failure)).toEqual([undefined]);

    // Prepare planned two pages; each stage's Map gave its page handler every page, then its close all of them.
    const prepare = calls.find((c) => c.state === 'Prepare')!;
    expect(prepare.result).toMatchObject({ batchId, pages: [0, 1], coversAll: true });
    for (const stage of stageNames) {
      const pages = calls.filter((c) => c.state === `${stage}Page`).map((c) => c.event);
      expect(pages.map((p) => p.page).sort()).toEqual([0, 1]);
      for (const p of pages) expect(p).toEqual({ accountId: expect.any(Number), batchId, runId: expect.any(String), stage, page: p.page });
      expect(calls.filter((c) => c.state === `${stage}Done`).map((c) => c.event)).toEqual([{ accountId: expect.any(Number), batchId, runId: expect.any(String), stage, pages: [0, 1] }]);
    }
    expect(calls.filter((c) => c.state === 'Finish').map((c) => c.event)).toEqual([{ accountId: expect.any(Number), batchId, runId: expect.any(String), pages: [0, 1], coversAll: true }]);
    expect(calls.filter((c) => c.error)).toEqual([]);

    const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
    expect(status.body.data).toMatchObject({ status: 'completed', overall_progress: 100 });
    const download = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
    expect(download.body.data.products).toHaveLength(501);
    expect(seen.filter((e) => e.type === 'manifest.processing_completed')).toHaveLength(1);
  }, 120_000);

  it('stops a run that a newer submission superseded at Prepare, without running a stage', async () => {
    const { token } = await t.account('Superseded Couriers');
    const { batchId, outcomes } = await submitAndRun(token, manifest(1));
    expect(outcomes.map(failure)).toEqual([undefined]);
    const accountId = calls[0].event.accountId as number;
    calls.length = 0;
    await expect(execute({ accountId, batchId, runId: 'an-older-run' })).resolves.toMatchObject({ superseded: true, pages: [] });
    expect(calls.map((c) => c.state)).toEqual(['Prepare']);
  });

  it('marks the manifest failed with the failing stage and its message, and emits processing_failed, when a stage fails for good', async () => {
    const { token } = await t.account('Failing State Machine Couriers');
    let classified = 0;
    useTariffClassifier({ classify: async () => (classified++, Promise.reject(new Error('model unavailable'))) });
    const { batchId, outcomes } = await submitAndRun(token, manifest(1));
    // The run ends in the Fail state after the Catch path marked the manifest.
    expect(outcomes.map(failure)).toEqual([expect.stringMatching(/^ManifestProcessingFailed: /)]);
    expect(classified).toBe(3);
    const marked = calls.filter((c) => c.event?.error !== undefined);
    expect(marked).toHaveLength(1);
    expect(marked[0].error).toBeUndefined();

    const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
    expect(status.body.data).toMatchObject({ status: 'failed', error: 'model unavailable' });
    // Web services runs beside ai: it completed, or the failure stopped it (as a Parallel state stops its other branch).
    const steps = Object.fromEntries(status.body.data.pipeline_steps.map((s: { key: string; status: string }) => [s.key, s.status]));
    expect(steps).toMatchObject({ classification: 'completed', ai: 'failed', calculations: 'pending' });
    expect(['completed', 'processing']).toContain(steps.webservices);
    const failed = seen.filter((e) => e.type === 'manifest.processing_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({ batch_id: batchId, stage: 'ai', error: 'model unavailable' });
  }, 60_000);
});
