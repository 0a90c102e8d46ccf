import { prepare, type RunInput } from '#services/pipeline/run';
import { pipelineTask } from './task';

/** State machine task: plan the run's pages. */
export const handler = pipelineTask('prepare', async (input: RunInput) => prepare(input));
