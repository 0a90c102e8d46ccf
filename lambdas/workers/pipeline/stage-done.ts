import { stageDone, type RunInput } from '../../services/pipeline/run';
import type { StageName } from '../../core/pipeline/stages';

/** State machine task: a stage finished every page. */
export const handler = (input: RunInput & { stage: StageName; pages: number[] }) => stageDone(input);
