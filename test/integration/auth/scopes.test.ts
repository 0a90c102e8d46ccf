import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { routes } from '#catalog';
import { roleScopes } from '#catalog/access';
import { putToken } from '#infra/entities/auth';
import { hashToken } from '#core/auth/tokens';
import { legacyScopes, type Role, type RouteDef } from '#catalog/types';

/**
 * Every route that names a scope refuses, with 403 naming it, a token of a role the route admits
 * that holds every other scope the role may hold: the test goes over the catalog, so a route
 * added without its scope, or a scope its function does not check, fails here.
 */
const t = useTwin();

/** A path of the route with each parameter filled (the gate answers before the parameters are read). */
const pathOf = (r: RouteDef) => r.path.replace(/\{[^}]+\}/g, (p) => (p === '{courier}' ? 'default' : '1'));

describe('a permission for every route', () => {
  it('refuses a token without the route\'s scope with 403 naming it, on every route that names one', { timeout: 300_000 }, async () => {
    const operator = (await t.call('GET', '/v1/me')).body.data.account.id as number;
    const accounts: Partial<Record<Role, number>> = { admin: operator };
    const tokens = new Map<string, string>();
    const tokenWithout = async (role: Role, missing: readonly string[]) => {
      const key = `${role}|${missing.join(',')}`;
      if (!tokens.has(key)) {
        accounts[role] ??= (await t.call('POST', '/v1/admin/accounts', { body: { name: `Scopes ${role}`, kind: role } })).body.data.id;
        const scopes = roleScopes(role).filter((s) => !missing.includes(s));
        const res = await t.call('POST', '/v1/admin/tokens', { body: { account_id: accounts[role], name: `without ${missing.join(' ')}`, role, scopes } });
        expect(res.status, res.text).toBe(201);
        tokens.set(key, res.body.data.token);
      }
      return tokens.get(key)!;
    };
    const checked: string[] = [];
    for (const route of routes) {
      if (route.auth === 'public' || !route.auth.scopes) continue;
      const role: Role = route.auth.roles?.includes('partner') || !route.auth.roles ? 'partner' : route.auth.roles.includes('broker') ? 'broker' : 'admin';
      const token = await tokenWithout(role, route.auth.scopes);
      const res = await t.call(route.method, pathOf(route), { token, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }) });
      expect(`${route.id} ${res.status} ${res.body?.error}`).toBe(`${route.id} 403 forbidden`);
      expect(res.body.message).toBe(`This action needs the ${route.auth.scopes.join(' or ')} scope.`);
      checked.push(route.id);
    }
    expect(checked.length).toBe(routes.filter((r) => r.auth !== 'public').length - 1);
  });

  it('gives a token created without scopes every scope its role may hold, and refuses one its role may not', async () => {
    const broker = (await t.call('POST', '/v1/admin/accounts', { body: { name: 'Preset Brokers', kind: 'broker' } })).body.data.id;
    const preset = await t.call('POST', '/v1/admin/tokens', { body: { account_id: broker, name: 'preset', role: 'broker' } });
    expect(preset.body.data.scopes).toEqual(roleScopes('broker'));
    const none = await t.call('POST', '/v1/admin/tokens', { body: { account_id: broker, name: 'none', role: 'broker', scopes: [] } });
    expect(none.body.data.scopes).toEqual([]);
    expect((await t.call('GET', '/v1/me', { token: none.body.data.token })).status).toBe(200);
    expect((await t.call('GET', '/v1/couriers/review/inbox', { token: none.body.data.token })).status).toBe(403);
    const partner = (await t.account('Preset Partner')).accountId;
    const refused = await t.call('POST', '/v1/admin/tokens', { body: { account_id: partner, name: 'too much', role: 'partner', scopes: ['manifests:read', 'review:write', 'admin'] } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.scopes[0]).toMatch(/^No route a partner token may call needs review:write, admin;/);
  });

  it('writes out what a token issued before could do: at its first use, or by the migration, once', async () => {
    const { accountId } = await t.account('Old Tokens');
    const old = async (name: string, scopes: ('orders:read' | 'orders:write' | 'customs:read')[]) => {
      const value = `dsp_old_${name}_${'x'.repeat(24)}`;
      const record = await putToken({ tokenHash: hashToken(value), accountId, name, role: 'partner', scopes, createdAt: new Date().toISOString() });
      return { value, id: record.id };
    };
    const used = await old('used', ['orders:read']);
    const idle = await old('idle', ['orders:write', 'customs:read']);
    // Used: it uploads a document as it could (no scope named then), and has its scopes written out.
    expect((await t.call('GET', '/v1/transport/documents', { token: used.value })).status).toBe(200);
    expect((await t.call('GET', '/v1/shipping/carriers', { token: used.value })).status).toBe(200);
    expect((await t.call('POST', '/v1/orders', { token: used.value, body: {} })).status).toBe(403);
    const listed = async (id: number) => (await t.call('GET', `/v1/admin/tokens?account_id=${accountId}`)).body.data.find((x: { id: number }) => x.id === id).scopes;
    expect(await listed(used.id)).toEqual(legacyScopes(['orders:read'], 'partner'));
    // Idle: the migration writes it out, and a second run finds nothing to do.
    expect(await listed(idle.id)).toEqual(['orders:write', 'customs:read']);
    const first = await t.call('POST', '/v1/admin/migrations/token-scopes', { body: {} });
    expect(first.body.data).toMatchObject({ done: true, cursor: null });
    expect(first.body.data.written).toBeGreaterThanOrEqual(1);
    expect(await listed(idle.id)).toEqual(legacyScopes(['orders:write', 'customs:read'], 'partner'));
    const again = await t.call('POST', '/v1/admin/migrations/token-scopes', { body: {} });
    expect(again.body.data).toMatchObject({ done: true, written: 0 });
    expect((await t.call('POST', '/v1/admin/migrations/token-scopes', { body: { cursor: 'nope' } })).status).toBe(422);
  });
});
