import { finish, type RunInput } from '../../services/pipeline/run';

/** State machine task: store the results, complete the manifest, announce it. */
export const handler = (input: RunInput & { pages: number[] }) => finish(input);
