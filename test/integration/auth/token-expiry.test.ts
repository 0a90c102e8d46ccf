import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { useTwin } from '#support/twin';

/** Tokens with an end (issue 32): `expires_at` on creation, 401 `token_expired` after it, shown in the lists. */
const t = useTwin();

afterEach(() => useSystemClock());

const day = 24 * 3600 * 1000;

async function partner(name: string) {
  const acc = await t.call('POST', '/v1/admin/accounts', { body: { name, kind: 'partner' } });
  return acc.body.data.id as number;
}

const create = (accountId: number, expiresAt: unknown) =>
  t.call('POST', '/v1/admin/tokens', { body: { account_id: accountId, name: 'contractor', role: 'partner', expires_at: expiresAt } });

describe('token expiry', () => {
  it('issues a token with expires_at and shows it, as given, in the admin list and the account list; null when none', async () => {
    const accountId = await partner('Expiring Couriers');
    // Given in Buenos Aires time (-03:00), kept and shown in UTC.
    const at = Math.floor((Date.now() + 30 * day) / 1000) * 1000;
    const given = new Date(at - 3 * 3600_000).toISOString().slice(0, 19) + '-03:00';
    const expected = new Date(at).toISOString();
    const made = await create(accountId, given);
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.expires_at).toBe(expected);
    const plain = await t.call('POST', '/v1/admin/tokens', { body: { account_id: accountId, name: 'forever', role: 'partner' } });
    expect(plain.body.data.expires_at).toBeNull();
    const admin = await t.call('GET', `/v1/admin/tokens?account_id=${accountId}`);
    expect(admin.body.data.map((x: { name: string; expires_at: string | null }) => [x.name, x.expires_at])).toEqual([
      ['contractor', expected],
      ['forever', null],
    ]);
    const mine = await t.call('GET', '/v1/me/tokens', { token: made.body.data.token });
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((x: { name: string; expires_at: string | null }) => [x.name, x.expires_at])).toEqual([
      ['contractor', expected],
      ['forever', null],
    ]);
  });

  it('answers 422 naming expires_at when it is in the past, more than 2 years ahead, or not an ISO 8601 time', async () => {
    const accountId = await partner('Bad Expiry Couriers');
    const now = Date.now();
    for (const bad of [
      new Date(now - 60_000).toISOString(),
      new Date(now + 2 * 366 * day).toISOString(),
      '2027-02-31T00:00:00Z',
      '2027-01-01',
      'tomorrow',
      '2027-01-01T00:00:00',
      1893456000,
      null,
    ]) {
      const res = await create(accountId, bad);
      expect(res.status, String(bad)).toBe(422);
      expect(Object.keys(res.body.errors), String(bad)).toEqual(['expires_at']);
    }
    // Nothing was issued.
    expect((await t.call('GET', `/v1/admin/tokens?account_id=${accountId}`)).body.data).toEqual([]);
    // Just within two years is taken.
    const edge = new Date(now + 2 * 365 * day - day).toISOString();
    expect((await create(accountId, edge)).status).toBe(201);
  });

  it('answers 401 token_expired once the expiry is reached, on the very next call, and shows the token inactive', async () => {
    const accountId = await partner('Short Lived Couriers');
    const start = new Date();
    const clock = manualClock(start);
    useClock(clock);
    const expiresAt = new Date(start.getTime() + 3600_000).toISOString();
    const made = await create(accountId, expiresAt);
    expect(made.status).toBe(201);
    const token = made.body.data.token as string;
    expect((await t.call('GET', '/v1/me', { token })).status).toBe(200);
    clock.advance(3600_000 - 1000);
    expect((await t.call('GET', '/v1/me/tokens', { token })).status).toBe(200);
    clock.advance(1000);
    for (const path of ['/v1/me', '/v1/me/tokens', '/v1/couriers/manifests']) {
      const res = await t.call('GET', path, { token });
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual({ success: false, message: `This token expired at ${expiresAt}. Ask for a new token.`, error: 'token_expired' });
    }
    const listed = (await t.call('GET', `/v1/admin/tokens?account_id=${accountId}`)).body.data[0];
    expect(listed).toMatchObject({ expires_at: expiresAt, active: false, revoked_at: null });
  });

  it("refuses an expired token even when the authorizer's answer was given before the expiry (a cached result)", async () => {
    const accountId = await partner('Cached Couriers');
    const start = new Date();
    const clock = manualClock(start);
    useClock(clock);
    const expiresAt = new Date(start.getTime() + 60_000).toISOString();
    const token = (await create(accountId, expiresAt)).body.data.token as string;
    // The twin's gateway asks the authorizer per request; a cache would hand the route the answer
    // given before the expiry. The route itself still refuses once the expiry has passed.
    const { handler: authorizer } = await import('#http/authorizer');
    const verdict = await authorizer({ routeKey: 'GET /api/v1/me', headers: { authorization: `Bearer ${token}` }, requestContext: { requestId: 'cached' } } as never);
    expect(verdict.isAuthorized).toBe(true);
    clock.advance(60_000);
    const { handler: me } = await import('#http/auth/me');
    const res = (await me(
      { routeKey: 'GET /api/v1/me', headers: {}, requestContext: { requestId: 'cached', authorizer: { lambda: verdict.context } } } as never,
      { awsRequestId: 'cached', functionName: 'Me' } as never,
    )) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'token_expired' });
  });
});
