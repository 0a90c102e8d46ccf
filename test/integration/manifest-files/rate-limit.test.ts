import { describe, expect, it } from 'vitest';
import { useManualClock } from '#support/clock';
import { useTwin } from '#support/twin';
import { upload } from './storage';

const t = useTwin();
const clock = useManualClock('2026-11-20T10:00:00Z');

describe('stored manifest file rate limit (storage group, 30 a minute)', () => {
  it('allows 30 uploads a minute per token and answers the 31st with 429', async () => {
    const { token } = await t.account('Storage Burst SA');
    for (let i = 1; i <= 30; i++) {
      const res = await upload(t, token, { courier_code: 'DHL' });
      expect(res.status, `call ${i}`).toBe(422);
      expect(res.headers.get('x-ratelimit-limit'), `call ${i}`).toBe('30');
    }
    const res = await upload(t, token, { courier_code: 'DHL' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
  });

  it('counts the list in the same group of 30 a minute', async () => {
    const { token } = await t.account('Storage Reader SA');
    for (let i = 0; i < 30; i++) await t.call('GET', '/v1/manifests/storage/list', { token });
    expect((await t.call('GET', '/v1/manifests/storage/list', { token })).status).toBe(429);
    expect((await t.call('POST', '/v1/manifests/storage/upload-url', { token, body: {} })).status).toBe(429);
  });
});
