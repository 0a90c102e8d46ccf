import { scopes, type Role, type RouteDef, type Scope } from './types';
import access from './access.json';

/**
 * What the authorizer and the fallback need of each route, without the route's schemas:
 * access.json, written from the typed catalog (scripts/generate-route-access.ts) by
 * `npm run catalog:access` or by `npm test`, which rewrites it when it differs from the catalog and
 * fails once; never by hand. The rows are RouteDef's own values.
 */
export type RouteAccess = Pick<RouteDef, 'id' | 'method' | 'path' | 'root' | 'auth' | 'rate' | 'twinOnly'>;

export const routeAccess = access as readonly RouteAccess[];

/**
 * The scopes a token of `role` may hold: every scope a route it may call names (admin passes
 * every role check, so it may hold every scope a route names). A token created without `scopes`
 * gets these (docs/partners/authentication.md); one that names others is refused (422 on scopes).
 */
export function roleScopes(role: Role): Scope[] {
  const named = new Set<Scope>();
  for (const r of routeAccess) {
    if (r.auth === 'public' || !r.auth.scopes) continue;
    if (role !== 'admin' && r.auth.roles && !r.auth.roles.includes(role)) continue;
    for (const s of r.auth.scopes) named.add(s);
  }
  return scopes.filter((s) => named.has(s));
}
