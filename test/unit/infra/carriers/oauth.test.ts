import { afterEach, describe, expect, it } from 'vitest';
import { OAuthTokenCache } from '#infra/carriers/oauth';
import { manualClock, useClock, useSystemClock } from '#infra/clock';

afterEach(() => useSystemClock());

describe('carrier OAuth tokens', () => {
  it('reuses a token until a minute before it expires, then asks for a new one', async () => {
    const clock = manualClock(new Date('2026-01-01T00:00:00Z'));
    useClock(clock);
    const cache = new OAuthTokenCache();
    let asked = 0;
    const fetchToken = async () => ({ accessToken: `t${++asked}`, expiresIn: 3600 });
    const key = OAuthTokenCache.key('fedex', 'https://apis-sandbox.fedex.com/oauth/token', 'id', 'secret');
    expect(await cache.token(key, fetchToken)).toBe('t1');
    clock.advance(3600_000 - 61_000);
    expect(await cache.token(key, fetchToken)).toBe('t1');
    clock.advance(2_000);
    expect(await cache.token(key, fetchToken)).toBe('t2');
  });

  it('shares one token request among callers asking at once', async () => {
    const cache = new OAuthTokenCache();
    let asked = 0;
    const fetchToken = async () => {
      asked++;
      await new Promise((r) => setTimeout(r, 20));
      return { accessToken: 'shared', expiresIn: 3600 };
    };
    const tokens = await Promise.all([1, 2, 3].map(() => cache.token('k', fetchToken)));
    expect(tokens).toEqual(['shared', 'shared', 'shared']);
    expect(asked).toBe(1);
  });

  it('gives new credentials a new token, and a forgotten (refused) token is asked for again', async () => {
    const cache = new OAuthTokenCache();
    let asked = 0;
    const fetchToken = async () => ({ accessToken: `t${++asked}`, expiresIn: 3600 });
    const before = OAuthTokenCache.key('ups', 'u', 'id', 'old-secret');
    const after = OAuthTokenCache.key('ups', 'u', 'id', 'new-secret');
    expect(before).not.toBe(after);
    expect(before).not.toContain('old-secret');
    await cache.token(before, fetchToken);
    expect(await cache.token(after, fetchToken)).toBe('t2');
    cache.forget(after);
    expect(await cache.token(after, fetchToken)).toBe('t3');
  });

  it('does not keep a failed token request, and keeps at most its bound of tokens', async () => {
    const cache = new OAuthTokenCache(3);
    await expect(cache.token('k', async () => Promise.reject(new Error('401')))).rejects.toThrow('401');
    expect(await cache.token('k', async () => ({ accessToken: 'ok', expiresIn: 60 * 60 }))).toBe('ok');
    for (let i = 0; i < 10; i++) await cache.token(`k${i}`, async () => ({ accessToken: String(i), expiresIn: 3600 }));
    expect(cache.size).toBe(3);
  });
});
