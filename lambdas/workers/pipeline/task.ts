import type { Context } from 'aws-lambda';
import { logInvocation, logger, withLogKeys } from '#shared/logger';

/** The ids of a task's input that say which run it worked on: never personal data. */
interface RunIds {
  batchId?: string;
  runId?: string;
  stage?: string;
  page?: number;
}

/**
 * A state machine task's handler: `fn` with the task, batch, run, stage and page on every line
 * logged while it runs (its own and those of the services it calls), and one line per call saying
 * how long it took (or why it failed), so a run's lines are found by its batch id. The request id
 * comes from the Lambda context (`logInvocation`).
 */
export function pipelineTask<I extends RunIds, O>(task: string, fn: (input: I) => Promise<O>): (input: I, context?: Context) => Promise<O> {
  return (input, context) =>
    withLogKeys({ ...logInvocation(context), task, batchId: input.batchId, runId: input.runId, stage: input.stage, page: input.page }, async () => {
      const started = Date.now();
      try {
        const out = await fn(input);
        logger.info('pipeline task', { ms: Date.now() - started });
        return out;
      } catch (err) {
        logger.error('pipeline task failed', { ms: Date.now() - started, error: err as Error });
        throw err;
      }
    });
}
