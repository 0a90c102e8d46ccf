/**
 * Verifies a webhook delivery (spec 5.7, docs/partners/webhooks.md) with the subscription's
 * secret, the `whsec_<base64>` text answered as `hmac_secret`, by either of the two signatures
 * every delivery carries:
 * - Standard Webhooks' `webhook-signature` (`v1,<base64>`, one or more, space-separated), the
 *   HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the bytes the base64
 *   after `whsec_` stands for; any one matching is enough (two while a rotated-out secret overlaps);
 * - spec 5.7's `X-Service-Signature` (`sha256=<hex>`), the HMAC-SHA256 of
 *   `<X-Service-Timestamp>.<raw body>` keyed with the signing secret as given (its text).
 * The Standard Webhooks signature is checked when its headers are there, else X-Service-Signature.
 * The timestamp must be within `toleranceSeconds` (default 300) of now, so a captured delivery
 * cannot be replayed later. Web Crypto only: Node 20+, Deno, Bun, browsers and workers alike.
 */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The envelope of every delivery (spec 2.10). */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  data: D;
}

export interface VerifyOptions {
  /** How far the signed timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in ms (tests). */
  now?: number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

const encoder = new TextEncoder();

async function hmac(key: Uint8Array<ArrayBuffer>, text: string): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, encoder.encode(text)));
}

/** Equal without a timing leak on where they differ. */
function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  // Standard base64, or the URL-safe alphabet older secrets used.
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function fromHex(text: string): Uint8Array | undefined {
  if (!/^[0-9a-f]{64}$/.test(text)) return undefined;
  return Uint8Array.from(text.match(/../g)!, (h) => parseInt(h, 16));
}

/** The key of `webhook-signature`: the bytes after `whsec_`, base64-decoded. */
export function standardWebhooksKey(secret: string): Uint8Array<ArrayBuffer> {
  const m = /^whsec_([A-Za-z0-9+/_-]+={0,2})$/.exec(secret);
  if (!m) throw new WebhookVerificationError('the secret is not of the form whsec_<base64>: use the hmac_secret of the subscription');
  return fromBase64(m[1]);
}

function checkTimestamp(value: string | undefined, name: string, opts: VerifyOptions): void {
  if (!value || !/^\d+$/.test(value)) throw new WebhookVerificationError(`missing or malformed ${name}`);
  const tolerance = opts.toleranceSeconds ?? 300;
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(value)) > tolerance) throw new WebhookVerificationError(`${name} is more than ${tolerance} s from now: a late or replayed delivery`);
}

/**
 * The delivery's event when a signature matches; a WebhookVerificationError otherwise. `body` is
 * the raw body as received (a string or its bytes), never a re-serialized object.
 */
export async function verifyWebhook<D = Record<string, unknown>>(secret: string, body: string | Uint8Array, headers: HeaderBag, opts: VerifyOptions = {}): Promise<WebhookEvent<D>> {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const id = header(headers, 'webhook-id');
  const standard = header(headers, 'webhook-signature');
  if (id && standard) {
    const timestamp = header(headers, 'webhook-timestamp');
    checkTimestamp(timestamp, 'webhook-timestamp', opts);
    const expected = await hmac(standardWebhooksKey(secret), `${id}.${timestamp}.${text}`);
    const given = standard.split(' ').flatMap((s) => (s.startsWith('v1,') ? [s.slice(3)] : []));
    if (!given.some((s) => same(fromBase64(s), expected))) throw new WebhookVerificationError('no webhook-signature matches: check the secret and that the body is the raw one');
  } else {
    const signature = header(headers, 'X-Service-Signature');
    const timestamp = header(headers, 'X-Service-Timestamp');
    if (!signature) throw new WebhookVerificationError('no signature: neither webhook-signature nor X-Service-Signature is present');
    checkTimestamp(timestamp, 'X-Service-Timestamp', opts);
    const given = fromHex(signature.replace(/^sha256=/, ''));
    const expected = await hmac(encoder.encode(secret), `${timestamp}.${text}`);
    if (!given || !signature.startsWith('sha256=') || !same(given, expected)) throw new WebhookVerificationError('X-Service-Signature does not match: check the secret and that the body is the raw one');
  }
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
  return event as WebhookEvent<D>;
}
