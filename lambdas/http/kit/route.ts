import { makeRoute } from './route-core';
import { gate } from './gate';

export * from './route-core';

/**
 * The wrapper of every handler behind the authorizer: the shared middleware stack (route-core.ts)
 * with the gate that judges the route's roles, scopes and rate window on every request.
 */
export const route = makeRoute(gate);
