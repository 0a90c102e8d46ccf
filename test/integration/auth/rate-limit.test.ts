import { describe, expect, it } from 'vitest';
import { useManualClock } from '#support/clock';
import { useTwin } from '#support/twin';

const t = useTwin();
// A still clock keeps all calls in one minute window whatever the wall clock does.
const clock = useManualClock('2026-11-20T10:00:05Z');

describe('rate limits', () => {
  it('answers the 61st call in a minute to a 60/min group with 429, Retry-After and retry_after in the body', async () => {
    const { token } = await t.account('Busy Partner');
    // The window of 10:00:05 ends at 10:01:00: X-RateLimit-Reset is that moment in Unix seconds.
    const resetAt = String(Date.parse('2026-11-20T10:01:00Z') / 1000);
    for (let i = 1; i <= 60; i++) {
      const res = await t.call('GET', '/v1/me', { token });
      expect(res.status, `call ${i}`).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
      expect(res.headers.get('x-ratelimit-reset')).toBe(resetAt);
    }
    const res = await t.call('GET', '/v1/me', { token });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ success: false, error: 'rate_limited', message: 'Rate limit of 60 requests per minute exceeded; retry in 55 s.', retry_after: 55 });
    expect(res.headers.get('retry-after')).toBe('55');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(res.headers.get('x-ratelimit-reset')).toBe(resetAt);
  });

  it('counts per token: another token of the same account is unaffected', async () => {
    const first = await t.account('Twin Tokens');
    for (let i = 0; i < 61; i++) await t.call('GET', '/v1/me/tokens', { token: first.token });
    const other = await t.call('POST', '/v1/admin/tokens', { body: { account_id: first.accountId, name: 'second', role: 'partner' } });
    const res = await t.call('GET', '/v1/me', { token: other.body.data.token });
    expect(res.status).toBe(200);
  });

  it('opens a fresh window the next minute', async () => {
    const { token } = await t.account('Patient Partner');
    for (let i = 0; i < 61; i++) await t.call('GET', '/v1/me', { token });
    expect((await t.call('GET', '/v1/me', { token })).status).toBe(429);
    clock.advance(60_000);
    const res = await t.call('GET', '/v1/me', { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('does not rate-limit public routes', async () => {
    const res = await t.call('GET', '/health', { token: null });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(res.headers.get('x-ratelimit-reset')).toBeNull();
  });
});
