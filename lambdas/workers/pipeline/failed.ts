import { fail, type RunInput } from '../../services/pipeline/run';
import type { StageName } from '../../core/pipeline/stages';

/** State machine task: a step gave up after its retries; the manifest is marked failed. */
export const handler = (input: RunInput & { stage?: StageName; error: string }) => fail(input);
