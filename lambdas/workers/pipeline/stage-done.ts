import { stageDone, type RunInput } from '#services/pipeline/run';
import type { StageName } from '#core/pipeline/stages';
import { pipelineTask } from './task';

/** State machine task: a stage finished every page. */
export const handler = pipelineTask('stage-done', async (input: RunInput & { stage: StageName; pages: number[] }) => stageDone(input));
