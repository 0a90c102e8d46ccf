import type { RouteDef } from '#catalog/types';
import type { Principal } from './principal';

export type Verdict =
  | { allow: true }
  | { allow: false; status: 401 | 403; message: string };

/** Does this principal satisfy the route's declared roles and scopes? Admins pass every role check. */
export function authorize(route: Pick<RouteDef, 'auth'>, principal: Principal | undefined): Verdict {
  if (route.auth === 'public') return { allow: true };
  if (!principal) return { allow: false, status: 401, message: 'A valid bearer token is required.' };
  const { roles, scopes } = route.auth;
  if (roles && principal.role !== 'admin' && !roles.includes(principal.role)) {
    return { allow: false, status: 403, message: `This action needs the ${roles.join(' or ')} role.` };
  }
  if (scopes && !scopes.some((s) => principal.scopes.includes(s))) {
    return { allow: false, status: 403, message: `This action needs the ${scopes.join(' or ')} scope.` };
  }
  return { allow: true };
}
