import { makeRoute } from './route-core';

/**
 * The wrapper of the routes that take no token (health, the OpenAPI document and its page, the
 * dashboard's and the console's pages, the fallback): the shared middleware stack without the gate,
 * so their bundles carry no table client. A protected route wrapped by it answers 401.
 */
export const publicRoute = makeRoute(undefined);
