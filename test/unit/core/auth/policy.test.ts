import { describe, expect, it } from 'vitest';
import { authorize } from '#core/auth/policy';
import { bearerToken, generateToken, hashToken } from '#core/auth/tokens';
import { minuteWindow } from '#core/auth/rate-limit';
import { compile, match } from '#catalog/routing';
import type { Principal } from '#core/auth/principal';
import type { RouteDef } from '#catalog/types';

const partner: Principal = { accountId: 1, tokenId: 1, tokenName: 'acme', email: null, role: 'partner', scopes: ['orders:read'] };

describe('route policy', () => {
  it('lets anyone call a public route', () => {
    expect(authorize({ auth: 'public' }, undefined)).toEqual({ allow: true });
  });

  it('asks for a token on every other route', () => {
    expect(authorize({ auth: {} }, undefined)).toMatchObject({ allow: false, status: 401 });
  });

  it('refuses a role the route does not name, but always admits the admin', () => {
    expect(authorize({ auth: { roles: ['broker'] } }, partner)).toMatchObject({ allow: false, status: 403 });
    expect(authorize({ auth: { roles: ['broker'] } }, { ...partner, role: 'admin' })).toEqual({ allow: true });
  });

  it('needs one of the scopes a route names', () => {
    expect(authorize({ auth: { scopes: ['orders:write'] } }, partner)).toMatchObject({ allow: false, status: 403 });
    expect(authorize({ auth: { scopes: ['orders:read', 'orders:write'] } }, partner)).toEqual({ allow: true });
  });
});

describe('tokens', () => {
  it('are unique and hash to 64 hex characters', () => {
    const a = generateToken();
    expect(a).not.toBe(generateToken());
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('are read only from a well-formed Bearer header', () => {
    expect(bearerToken('Bearer dsp_abcdefghijklmnop')).toBe('dsp_abcdefghijklmnop');
    expect(bearerToken('bearer dsp_abcdefghijklmnop')).toBe('dsp_abcdefghijklmnop');
    expect(bearerToken('Token dsp_abcdefghijklmnop')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('rate windows', () => {
  it('are whole minutes, with the seconds left until the next one', () => {
    expect(minuteWindow(new Date('2026-11-20T10:00:05Z')).resetInSeconds).toBe(55);
    expect(minuteWindow(new Date('2026-11-20T10:00:59.900Z')).resetInSeconds).toBe(1);
    expect(minuteWindow(new Date('2026-11-20T10:00:05Z')).resetAt).toBe(Date.parse('2026-11-20T10:01:00Z') / 1000);
    expect(minuteWindow(new Date('2026-11-20T10:00:00Z')).window).toBe(minuteWindow(new Date('2026-11-20T10:00:59Z')).window);
  });
});

describe('routing', () => {
  const routes = [
    { method: 'GET', path: '/v1/things/{id}' },
    { method: 'GET', path: '/v1/things/special' },
    { method: 'POST', path: '/v1/things' },
  ].map((r) => compile(r as Pick<RouteDef, 'method' | 'path'>));

  it('prefers a literal segment over a parameter', () => {
    expect(match(routes, 'GET', '/api/v1/things/special').route?.path).toBe('/v1/things/special');
    expect(match(routes, 'GET', '/api/v1/things/12').params).toEqual({ id: '12' });
  });

  it('tells a wrong method from an unknown path', () => {
    const wrongMethod = match(routes, 'DELETE', '/api/v1/things');
    expect([wrongMethod.route, wrongMethod.pathExists]).toEqual([undefined, true]);
    const unknown = match(routes, 'GET', '/api/v1/nothing');
    expect([unknown.route, unknown.pathExists]).toEqual([undefined, false]);
  });
});
