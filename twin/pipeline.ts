import type { SQSEvent } from 'aws-lambda';
import { stageSteps, stepOf, type StageName } from '#core/pipeline/stages';
import { executionName, type PipelineRunInput, type PipelineRunner } from '#infra/state-machine';
import { getBatch } from '#infra/entities/manifests';
import type { PrepareOutput } from '#services/pipeline/run';
import type { QueueDef, WorkerDef } from '#catalog/types';
import { logger } from '#shared/logger';
import { lambdaContext, type TwinJobs } from './jobs';

/**
 * The twin's Step Functions: walks the same state machine as lib/pipeline.ts (prepare, then per
 * step of `stageSteps` a map over the pages and the close of each of its stages, side by side,
 * then finish; `failed` after three attempts of a step) by invoking the same task handlers, one
 * persisted job per step, so a run survives a restart. Pages run as many at a time as the job
 * dispatcher runs jobs (as the Map's MaxConcurrency bounds them). A page's job that finds its
 * stage's pages all done queues the stage's close under a fixed id, which is the Map's join: it
 * runs once. A close that finds every stage of its step completed queues the next step (or
 * finish) under a fixed id, which is the Parallel state's join. Once a run failed, the closes
 * still to come for it do nothing (as Step Functions stops a Parallel state's other branches), so
 * nothing after the failed step runs and no alert follows the failure.
 */
export const pipelineQueue = 'pipelineSteps';
export const pipelineQueueDef: QueueDef = { visibilityTimeoutSeconds: 300, maxReceiveCount: 1 };
export const pipelineWorker: WorkerDef = { id: 'TwinPipeline', handler: 'twin/pipeline', summary: 'The twin\'s state machine runner', queue: pipelineQueue as never, batchSize: 1 };

type Step =
  | { step: 'prepare'; input: PipelineRunInput; attempt: number }
  | { step: 'next'; run: PrepareOutput; index: number; attempt: number }
  | { step: 'page'; run: PrepareOutput; stage: StageName; page: number; attempt: number }
  | { step: 'stageDone'; run: PrepareOutput; stage: StageName; attempt: number }
  | { step: 'finish'; run: PrepareOutput; attempt: number };

type Task = (input: unknown, context: unknown) => Promise<unknown>;

const maxAttempts = 3;

export class TwinPipeline implements PipelineRunner {
  constructor(
    private readonly jobs: TwinJobs,
    private readonly loadHandler: (module: string) => Promise<Task>,
  ) {}

  async start(input: PipelineRunInput): Promise<void> {
    await this.jobs.sendOnce(pipelineQueue, { step: 'prepare', input, attempt: 1 } satisfies Step, `pipe-${executionName(input)}`);
  }

  /** The SQS-shaped handler TwinJobs calls for the pipeline queue. */
  readonly handler = async (event: SQSEvent) => {
    for (const record of event.Records) await this.run(JSON.parse(record.body) as Step);
  };

  private task(name: string, input: unknown) {
    return this.loadHandler(`workers/pipeline/${name}`).then((h) => h(input, lambdaContext(`Pipeline-${name}`)));
  }

  private id(run: PipelineRunInput, ...parts: (string | number)[]) {
    return ['pipe', executionName(run), ...parts].join('-');
  }

  /** Queues every page of every stage of step `index` (or, without pages, the stages' closes). */
  private async enqueueStep(run: PrepareOutput, index: number) {
    const stages = stageSteps[index];
    if (run.pages.length === 0) {
      for (const stage of stages) await this.jobs.sendOnce(pipelineQueue, { step: 'stageDone', run, stage, attempt: 1 } satisfies Step, this.id(run, stage, 'done'));
      return;
    }
    await this.jobs.sendBatch(
      pipelineQueue,
      stages.flatMap((stage) => run.pages.map((page): Step => ({ step: 'page', run, stage, page, attempt: 1 }))),
    );
  }

  /** True when the run failed for good: the closes still queued for it do nothing. */
  private async failed(run: PrepareOutput): Promise<boolean> {
    const batch = await getBatch(run.batchId);
    return batch?.status === 'failed' && batch.pipeline?.runId === run.runId;
  }

  private async run(step: Step): Promise<void> {
    try {
      await this.execute(step);
    } catch (err) {
      const error = (err as Error).message;
      const run = step.step === 'prepare' ? step.input : step.run;
      if (step.attempt < maxAttempts) {
        logger.warn('pipeline step failed; retrying', { batchId: run.batchId, runId: run.runId, step: step.step, attempt: step.attempt, error });
        const retry = { ...step, attempt: step.attempt + 1 };
        const part = 'stage' in step ? step.stage : 'index' in step ? step.index : '';
        await this.jobs.sendOnce(pipelineQueue, retry, this.id(run, step.step, part, 'page' in step ? step.page : '', retry.attempt), {
          delaySeconds: 2 ** step.attempt,
        });
        return;
      }
      await this.task('failed', { accountId: run.accountId, batchId: run.batchId, runId: run.runId, stage: 'stage' in step ? step.stage : undefined, error });
    }
  }

  private async execute(step: Step): Promise<void> {
    switch (step.step) {
      case 'prepare': {
        const run = (await this.task('prepare', step.input)) as PrepareOutput;
        if (!run.superseded) await this.enqueueStep(run, 0);
        return;
      }
      case 'next':
        await this.enqueueStep(step.run, step.index);
        return;
      case 'page': {
        const { pages: _pages, ...input } = step.run;
        await this.task('stage-page', { ...input, stage: step.stage, page: step.page });
        const batch = await getBatch(step.run.batchId);
        const state = batch?.pipeline;
        if (state?.runId === step.run.runId && state.stages[step.stage].done >= step.run.pages.length) {
          await this.jobs.sendOnce(pipelineQueue, { step: 'stageDone', run: step.run, stage: step.stage, attempt: 1 } satisfies Step, this.id(step.run, step.stage, 'done'));
        }
        return;
      }
      case 'stageDone': {
        if (await this.failed(step.run)) return;
        await this.task('stage-done', { ...step.run, stage: step.stage });
        // The join of the step: whichever close finds every stage of the step completed (its own
        // included, written just before) queues what follows, under a fixed id.
        const index = stepOf(step.stage);
        const state = (await getBatch(step.run.batchId))?.pipeline;
        if (state?.runId !== step.run.runId || !stageSteps[index].every((s) => state.stages[s].status === 'completed')) return;
        if (index + 1 < stageSteps.length) await this.jobs.sendOnce(pipelineQueue, { step: 'next', run: step.run, index: index + 1, attempt: 1 } satisfies Step, this.id(step.run, 'step', index + 1));
        else await this.jobs.sendOnce(pipelineQueue, { step: 'finish', run: step.run, attempt: 1 } satisfies Step, this.id(step.run, 'finish'));
        return;
      }
      case 'finish':
        await this.task('finish', step.run);
    }
  }
}
