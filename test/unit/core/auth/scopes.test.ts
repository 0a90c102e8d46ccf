import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorize } from '#core/auth/policy';
import { routes } from '#catalog';
import { roleScopes } from '#catalog/access';
import { legacyScopes, roles, type Role, type RouteDef, type Scope } from '#catalog/types';
import type { Principal } from '#core/auth/principal';

/** What each route asked before every route named a scope (lambdas/catalog/access.json as it was then). */
const before = new Map(
  (JSON.parse(readFileSync('test/fixtures/access-before-issue-41.json', 'utf8')) as { id: string; auth: RouteDef['auth'] }[]).map((r) => [r.id, r.auth]),
);
const scopesBefore: Scope[] = ['orders:read', 'orders:write', 'customs:read', 'customs:write'];
const subsets = <T>(xs: readonly T[]): T[][] => xs.reduce<T[][]>((all, x) => all.concat(all.map((s) => [...s, x])), [[]]);
const principal = (role: Role, scopes: Scope[]): Principal => ({ accountId: 1, tokenId: 1, tokenName: 't', email: null, role, scopes });

describe('scopes', () => {
  it('are named by every route but the public ones and GET /v1/me', () => {
    const unnamed = routes.filter((r) => r.auth !== 'public' && !r.auth.scopes?.length).map((r) => r.id);
    expect(unnamed).toEqual(['Me']);
  });

  it('let a token issued before every route named one do exactly what it could, once written out', () => {
    let compared = 0;
    for (const route of routes) {
      const old = before.get(route.id);
      if (!old) continue;
      for (const role of roles) {
        for (const own of subsets(scopesBefore)) {
          const then = authorize({ auth: old }, principal(role, own)).allow;
          const now = authorize(route, principal(role, legacyScopes(own, role))).allow;
          expect(`${route.id} ${role} [${own}]: ${now}`).toBe(`${route.id} ${role} [${own}]: ${then}`);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(100 * roles.length * 16);
  });

  it('given by role, are what the routes the role may call name, and a partner gets no review decision or admin scope', () => {
    const partner = roleScopes('partner');
    expect(partner).toContain('manifests:write');
    expect(partner).toContain('review:read');
    expect(partner).not.toContain('review:write');
    expect(partner).not.toContain('admin');
    expect(roleScopes('broker')).toContain('review:write');
    expect(roleScopes('broker')).not.toContain('admin');
    expect(roleScopes('admin')).toContain('admin');
    for (const role of roles) {
      for (const route of routes) {
        if (route.auth === 'public' || (role !== 'admin' && route.auth.roles && !route.auth.roles.includes(role))) continue;
        expect(authorize(route, principal(role, roleScopes(role))), `${role} ${route.id}`).toEqual({ allow: true });
      }
    }
  });
});
