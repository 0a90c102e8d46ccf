import type { RouteDef } from './types';
import access from './access.json';

/**
 * What the authorizer and the fallback need of each route, without the route's schemas:
 * access.json, written from the typed catalog (scripts/generate-route-access.ts) by
 * `npm run catalog:access` or by `npm test`, which rewrites it when it differs from the catalog and
 * fails once; never by hand. The rows are RouteDef's own values.
 */
export type RouteAccess = Pick<RouteDef, 'id' | 'method' | 'path' | 'root' | 'auth' | 'rate' | 'twinOnly'>;

export const routeAccess = access as readonly RouteAccess[];
