import { finish, type RunInput } from '../../services/pipeline/run';

/** State machine task: store the results, complete the manifest, announce it. `coversAll` is Prepare's (the run's pages hold every item). */
export const handler = (input: RunInput & { pages: number[]; coversAll?: boolean }) => finish(input);
