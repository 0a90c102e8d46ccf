import { prepare, type RunInput } from '../../services/pipeline/run';

/** State machine task: plan the run's pages. */
export const handler = (input: RunInput) => prepare(input);
