import { finish, type RunInput } from '#services/pipeline/run';
import { pipelineTask } from './task';

/** State machine task: store the results, complete the manifest, announce it. `coversAll` is Prepare's (the run's pages hold every item). */
export const handler = pipelineTask('finish', async (input: RunInput & { pages: number[]; coversAll?: boolean }) => finish(input));
