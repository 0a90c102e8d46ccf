import { fail, type RunInput } from '#services/pipeline/run';
import type { StageName } from '#core/pipeline/stages';
import { pipelineTask } from './task';

/**
 * The error a run failed with: what a Step Functions Catch gives (`{ Error, Cause }`; a Lambda
 * function error's Cause is the JSON of its errorMessage, errorType and stack trace, other errors
 * may have a plain Cause or none), or the message itself (the twin's runner).
 */
export type CaughtError = string | { Error?: string; Cause?: string };

/** The message of a caught error: a Lambda error's errorMessage (never its stack trace), else the Cause, else the error name. */
export function errorMessage(error: CaughtError): string {
  if (typeof error === 'string') return error;
  const cause = error?.Cause;
  if (cause) {
    try {
      const parsed = JSON.parse(cause) as { errorMessage?: unknown };
      if (typeof parsed?.errorMessage === 'string') return parsed.errorMessage;
    } catch {
      // A plain-text Cause.
    }
    return cause;
  }
  return error?.Error ?? 'unknown error';
}

/** State machine task: a step gave up after its retries; the manifest is marked failed. */
export const handler = pipelineTask('failed', async (input: RunInput & { stage?: StageName; error: CaughtError }) => fail({ ...input, error: errorMessage(input.error) }));
