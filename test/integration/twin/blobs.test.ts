import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, useClock, useSystemClock } from '#infra/clock';
import { blobs } from '#infra/blobs';
import { useTwin } from '#support/twin';

const t = useTwin();
const clock = manualClock(new Date());
beforeAll(() => useClock(clock));
afterAll(() => useSystemClock());

describe('the twin blob store', () => {
  it('serves a file through a signed URL with its name and type', async () => {
    await blobs().put('documents/1/a.pdf', Buffer.from('%PDF-1.7 test'), 'application/pdf');
    const url = await blobs().downloadUrl('documents/1/a.pdf', { expiresInSeconds: 3600, fileName: 'Guía aérea.pdf' });
    expect(url.startsWith(t.twin.url + '/_blobs/')).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toContain(encodeURIComponent('Guía aérea.pdf'));
    expect(await res.text()).toBe('%PDF-1.7 test');
  });

  it('answers a path with malformed percent-encoding with 400 InvalidURI, as S3 does', async () => {
    for (const path of ['/_blobs/%ZZ', '/_blobs/documents/%E0%A4%A/x.pdf', '/_blobs/%']) {
      const res = await fetch(t.twin.url + path);
      expect(res.status, path).toBe(400);
      expect(await res.text()).toContain('<Code>InvalidURI</Code>');
    }
  });

  it('refuses a tampered URL with 403', async () => {
    await blobs().put('documents/2/b.pdf', Buffer.from('secret'), 'application/pdf');
    await blobs().put('documents/3/c.pdf', Buffer.from('other'), 'application/pdf');
    const url = new URL(await blobs().downloadUrl('documents/2/b.pdf', { expiresInSeconds: 3600 }));
    const otherKey = new URL(url.href.replace('documents/2/b.pdf', 'documents/3/c.pdf'));
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 86400));
    for (const bad of [otherKey, longer]) expect((await fetch(bad)).status).toBe(403);
  });

  it('refuses an expired URL with 403', async () => {
    await blobs().put('documents/4/d.pdf', Buffer.from('x'), 'application/pdf');
    const url = await blobs().downloadUrl('documents/4/d.pdf', { expiresInSeconds: 3600 });
    clock.advance(3601_000);
    expect((await fetch(url)).status).toBe(403);
  });

  it('never lets a key leave the store', async () => {
    await expect(blobs().put('../escape.txt', Buffer.from('x'), 'text/plain')).rejects.toThrow();
  });

  it('returns nothing for a missing file and deletes files', async () => {
    await blobs().put('documents/5/e.pdf', Buffer.from('x'), 'application/pdf');
    await blobs().delete('documents/5/e.pdf');
    expect(await blobs().get('documents/5/e.pdf')).toBeUndefined();
  });
});
