import { describe, expect, it } from 'vitest';
import { useManualClock } from '#support/clock';
import { useTwin } from '#support/twin';

const t = useTwin();
const clock = useManualClock('2026-11-20T10:00:00Z');

describe('document rate limits (spec 8)', () => {
  it('allows 30 uploads a minute per token and answers the 31st with 429', async () => {
    const { token } = await t.account('Upload Burst SA');
    const bad = { document_type: 'awb', file_base64: '', filename: 'a.pdf' };
    for (let i = 1; i <= 30; i++) {
      const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: bad });
      expect(res.headers.get('x-ratelimit-limit'), `call ${i}`).toBe('30');
    }
    const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: bad });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
  });

  it('counts list and show together at 60 a minute, apart from downloads', async () => {
    const { token } = await t.account('Reader SA');
    for (let i = 0; i < 30; i++) await t.call('GET', '/v1/transport/documents', { token });
    for (let i = 0; i < 30; i++) await t.call('GET', '/v1/transport/documents/999999', { token });
    expect((await t.call('GET', '/v1/transport/documents', { token })).status).toBe(429);
    const download = await t.call('GET', '/v1/transport/documents/999999/download', { token });
    expect(download.status).toBe(404);
    expect(download.headers.get('x-ratelimit-limit')).toBe('60');
  });
});
