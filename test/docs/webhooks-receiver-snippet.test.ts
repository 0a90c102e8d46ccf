import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newSigningSecret, signedHeaders, standardWebhooksSecret } from '#core/webhooks/delivery-rules';

type Verify = (h: Record<string, string>, body: string, secret: string, now?: number) => unknown;

/** One of the receiver snippets of docs/partners/webhooks.md, run as written (from inside the repository, so `standardwebhooks` resolves). */
async function snippet(marker: string) {
  const root = new URL('../../', import.meta.url);
  const readme = readFileSync(new URL('docs/partners/webhooks.md', root), 'utf8');
  const code = new RegExp(`<!-- ${marker} -->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(readme)![1];
  const cache = join(root.pathname, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const file = join(mkdtempSync(join(cache, 'snippet-')), 'receiver.mjs');
  writeFileSync(file, code);
  return (await import(pathToFileURL(file).href)) as { verifyDelivery: Verify };
}

const body = JSON.stringify({ id: 'evt_1', type: 'document.uploaded', created_at: '2026-11-20T10:00:00Z', data: {} });
const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

describe("the webhooks page's receiver snippet (standardwebhooks)", () => {
  const secret = newSigningSecret();
  const ts = () => Math.floor(Date.now() / 1000);

  it('accepts a delivery signed as the service signs, once', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet');
    const headers = lower(signedHeaders(secret, ts(), body, { id: 'evt_1' }));
    expect(verifyDelivery(headers, body, standardWebhooksSecret(secret))).toMatchObject({ id: 'evt_1' });
    expect(verifyDelivery(headers, body, standardWebhooksSecret(secret))).toBeNull();
  });

  it('refuses a wrong secret, a changed body and a stale timestamp', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet');
    const headers = lower(signedHeaders(secret, ts(), body, { id: 'evt_1' }));
    expect(() => verifyDelivery(headers, body, standardWebhooksSecret(newSigningSecret()))).toThrow(/signature/i);
    expect(() => verifyDelivery(headers, body.replace('evt_1', 'evt_2'), standardWebhooksSecret(secret))).toThrow(/signature/i);
    const stale = lower(signedHeaders(secret, ts() - 301, body, { id: 'evt_1' }));
    expect(() => verifyDelivery(stale, body, standardWebhooksSecret(secret))).toThrow(/too old/);
  });

  it('accepts either secret during a rotation overlap', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet');
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    for (const [i, s] of [current, previous].entries()) {
      const b = body.replace('evt_1', `evt_r${i}`);
      const headers = lower(signedHeaders(current, ts(), b, { id: `evt_r${i}`, previousSecrets: [previous] }));
      expect(verifyDelivery(headers, b, standardWebhooksSecret(s))).toMatchObject({ id: `evt_r${i}` });
    }
  });
});

describe("the webhooks page's receiver snippet without a library (X-Service-Signature)", () => {
  const now = Date.parse('2026-11-20T10:00:00Z');
  const ts = Math.floor(now / 1000);

  it('accepts a delivery signed as the service signs, once', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet-plain');
    const headers = lower(signedHeaders('whsec_abc', ts, body, { id: 'evt_1' }));
    expect(verifyDelivery(headers, body, 'whsec_abc', now)).toMatchObject({ id: 'evt_1' });
    expect(verifyDelivery(headers, body, 'whsec_abc', now)).toBeNull();
  });

  it('refuses a wrong secret, a changed body and a stale timestamp', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet-plain');
    const headers = lower(signedHeaders('whsec_abc', ts, body, { id: 'evt_1' }));
    expect(() => verifyDelivery(headers, body, 'whsec_other', now)).toThrow(/signature/);
    expect(() => verifyDelivery(headers, body.replace('evt_1', 'evt_2'), 'whsec_abc', now)).toThrow(/signature/);
    expect(() => verifyDelivery(headers, body, 'whsec_abc', now + 301_000)).toThrow(/stale/);
  });
});
