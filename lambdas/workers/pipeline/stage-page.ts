import { stagePage, type RunInput } from '../../services/pipeline/run';
import type { StageName } from '../../core/pipeline/stages';

/** State machine task (inside each stage's Map): one stage over one page of items. */
export const handler = (input: RunInput & { stage: StageName; page: number }) => stagePage(input);
