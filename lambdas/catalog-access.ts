import type { RouteDef } from './catalog-types';
import access from './catalog-access.json';

/**
 * What the authorizer and the fallback need of each route, without the route's schemas:
 * catalog-access.json, written from the typed catalog by `npm run catalog:access`
 * (scripts/generate-route-access.ts); test/unit/architecture/catalog-access.test.ts fails while it
 * differs from the catalog, so the rows are RouteDef's own values.
 */
export type RouteAccess = Pick<RouteDef, 'id' | 'method' | 'path' | 'root' | 'auth' | 'rate' | 'twinOnly'>;

export const routeAccess = access as readonly RouteAccess[];
