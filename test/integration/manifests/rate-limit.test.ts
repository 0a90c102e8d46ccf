import { describe, expect, it } from 'vitest';
import { useManualClock } from '#support/clock';
import { useTwin } from '#support/twin';
import { submitPath } from '#support/manifests';

const t = useTwin();
const clock = useManualClock('2026-11-21T10:00:00Z');

describe('courier rate limits (spec 8)', () => {
  it('allows 60 submissions a minute per token and answers the 61st with 429', async () => {
    const { token } = await t.account('Submit Burst Couriers');
    for (let i = 1; i <= 60; i++) {
      const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: 'M', items: [] } });
      expect(res.headers.get('x-ratelimit-limit'), `call ${i}`).toBe('60');
    }
    const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: 'M', items: [] } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
  });

  it('counts status checks together at 120 a minute, apart from submissions', async () => {
    const { token } = await t.account('Status Burst Couriers');
    for (let i = 0; i < 60; i++) await t.call('GET', '/v1/couriers/manifests', { token });
    for (let i = 0; i < 60; i++) await t.call('GET', '/v1/couriers/default/webhook/0f1e2d3c-0000-4000-8000-000000000000/status', { token });
    expect((await t.call('POST', '/v1/couriers/manifests/batch-status', { token, body: { manifests: ['X'] } })).status).toBe(429);
    const submit = await t.call('POST', submitPath(), { token, body: { mawbNumber: 'M', items: [] } });
    expect(submit.status).toBe(422);
    expect(submit.headers.get('x-ratelimit-limit')).toBe('60');
  });
});
