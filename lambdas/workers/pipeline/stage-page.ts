import { stagePage, type RunInput } from '#services/pipeline/run';
import type { StageName } from '#core/pipeline/stages';
import { pipelineTask } from './task';

/** State machine task (inside each stage's Map): one stage over one page of items. */
export const handler = pipelineTask('stage-page', async (input: RunInput & { stage: StageName; page: number }) => stagePage(input));
