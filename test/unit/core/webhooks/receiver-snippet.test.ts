import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { signedHeaders } from '../../../../lambdas/core/webhooks/delivery-rules';

/** The README's receiver snippet, run as written. */
async function snippet() {
  const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
  const code = /<!-- receiver-snippet -->\s*```js\n([\s\S]*?)```/.exec(readme)![1];
  const file = join(mkdtempSync(join(tmpdir(), 'snippet-')), 'receiver.mjs');
  writeFileSync(file, code);
  return (await import(pathToFileURL(file).href)) as { verifyDelivery: (h: Record<string, string>, body: string, secret: string, now?: number) => unknown };
}

describe("the README's receiver snippet", () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'document.uploaded', created_at: '2026-11-20T10:00:00Z', data: {} });
  const now = Date.parse('2026-11-20T10:00:00Z');
  const ts = Math.floor(now / 1000);
  const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

  it('accepts a delivery signed as the service signs, once', async () => {
    const { verifyDelivery } = await snippet();
    const headers = lower(signedHeaders('whsec_abc', ts, body));
    expect(verifyDelivery(headers, body, 'whsec_abc', now)).toMatchObject({ id: 'evt_1' });
    expect(verifyDelivery(headers, body, 'whsec_abc', now)).toBeNull();
  });

  it('refuses a wrong secret, a changed body and a stale timestamp', async () => {
    const { verifyDelivery } = await snippet();
    const headers = lower(signedHeaders('whsec_abc', ts, body));
    expect(() => verifyDelivery(headers, body, 'whsec_other', now)).toThrow(/signature/);
    expect(() => verifyDelivery(headers, body.replace('evt_1', 'evt_2'), 'whsec_abc', now)).toThrow(/signature/);
    expect(() => verifyDelivery(headers, body, 'whsec_abc', now + 301_000)).toThrow(/stale/);
  });
});
