import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { newSigningSecret, signedHeaders } from '#core/webhooks/delivery-rules';

type Verify = (h: Record<string, string>, body: string, secret: string, now?: number) => unknown;

const root = new URL('../../', import.meta.url);

/** The code block after `<!-- marker -->` in docs/partners/webhooks.md. */
function block(marker: string, lang: string): string {
  const readme = readFileSync(new URL('docs/partners/webhooks.md', root), 'utf8');
  return new RegExp(`<!-- ${marker} -->\\s*\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(readme)![1];
}

/** One of the receiver snippets of docs/partners/webhooks.md, run as written (from inside the repository, so `standardwebhooks` resolves). */
async function snippet(marker: string) {
  const code = block(marker, 'js');
  const cache = join(root.pathname, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const file = join(mkdtempSync(join(cache, 'snippet-')), 'receiver.mjs');
  writeFileSync(file, code);
  return (await import(pathToFileURL(file).href)) as { verifyDelivery: Verify };
}

const body = JSON.stringify({ id: 'evt_1', type: 'document.uploaded', created_at: '2026-11-20T10:00:00Z', data: {} });
const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

describe("the webhooks page's receiver snippet (standardwebhooks), given hmac_secret as it is", () => {
  const secret = newSigningSecret();
  const ts = () => Math.floor(Date.now() / 1000);

  it('accepts a delivery signed as the service signs, once', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet');
    const headers = lower(signedHeaders(secret, ts(), body, { id: 'evt_1' }));
    expect(verifyDelivery(headers, body, secret)).toMatchObject({ id: 'evt_1' });
    expect(verifyDelivery(headers, body, secret)).toBeNull();
  });

  it('refuses a wrong secret, a changed body and a stale timestamp', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet');
    const headers = lower(signedHeaders(secret, ts(), body, { id: 'evt_1' }));
    expect(() => verifyDelivery(headers, body, newSigningSecret())).toThrow(/signature/i);
    expect(() => verifyDelivery(headers, body.replace('evt_1', 'evt_2'), secret)).toThrow(/signature/i);
    const stale = lower(signedHeaders(secret, ts() - 301, body, { id: 'evt_1' }));
    expect(() => verifyDelivery(stale, body, secret)).toThrow(/too old/);
  });

  it('accepts either secret during a rotation overlap', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet');
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    for (const [i, s] of [current, previous].entries()) {
      const b = body.replace('evt_1', `evt_r${i}`);
      const headers = lower(signedHeaders(current, ts(), b, { id: `evt_r${i}`, previousSecrets: [previous] }));
      expect(verifyDelivery(headers, b, s)).toMatchObject({ id: `evt_r${i}` });
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

  it('accepts the old secret by X-Service-Previous-Signature during a rotation overlap', async () => {
    const { verifyDelivery } = await snippet('receiver-snippet-plain');
    const headers = lower(signedHeaders('whsec_new', ts, body, { id: 'evt_1', previousSecrets: ['whsec_abc'] }));
    expect(verifyDelivery(headers, body, 'whsec_abc', now)).toMatchObject({ id: 'evt_1' });
    expect(() => verifyDelivery(headers, body, 'whsec_other', now)).toThrow(/signature/);
  });
});

const python = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!python)("the webhooks page's Python X-Service-Signature snippet, run by python3", () => {
  /** verify_delivery of the page, called with these headers and body; its answer or its error, as JSON. */
  function verify(headers: Record<string, string>, raw: string, secret: string, now: number): { ok?: unknown; error?: string } {
    const program = `${block('receiver-snippet-plain-python', 'python')}
import sys
args = json.loads(sys.stdin.read())
try:
    print(json.dumps({"ok": verify_delivery(args["headers"], args["body"].encode(), args["secret"], args["now"])}))
except ValueError as e:
    print(json.dumps({"error": str(e)}))
`;
    return JSON.parse(execFileSync('python3', ['-c', program], { input: JSON.stringify({ headers, body: raw, secret, now }) }).toString());
  }
  const now = Math.floor(Date.parse('2026-11-20T10:00:00Z') / 1000);
  const secret = newSigningSecret();

  it('accepts a delivery signed as the service signs, and the old secret during a rotation overlap', () => {
    expect(verify(lower(signedHeaders(secret, now, body, { id: 'evt_1' })), body, secret, now)).toEqual({ ok: JSON.parse(body) });
    const rotated = lower(signedHeaders(newSigningSecret(), now, body, { id: 'evt_1', previousSecrets: [secret] }));
    expect(verify(rotated, body, secret, now)).toEqual({ ok: JSON.parse(body) });
  });

  it('refuses a wrong secret, a changed body and a stale timestamp', () => {
    const headers = lower(signedHeaders(secret, now, body, { id: 'evt_1' }));
    expect(verify(headers, body, newSigningSecret(), now)).toEqual({ error: 'bad signature' });
    expect(verify(headers, body.replace('evt_1', 'evt_2'), secret, now)).toEqual({ error: 'bad signature' });
    expect(verify(headers, body, secret, now + 301)).toEqual({ error: 'stale or missing timestamp' });
  });
});
