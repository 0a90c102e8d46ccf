import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { backoffMs, jsonClient, MarketplaceError, retryAfterMs, type HttpClientOptions } from '#infra/marketplaces/http';

/** One scripted answer per request, in order; the last repeats. `hang` never answers. */
type Script = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

let server: Server;
let url = '';
let script: Script[] = [];
const seen: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    const step = script[Math.min(seen.length - 1, script.length - 1)];
    if (step === 'hang') return;
    res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
    res.end(step.body ?? '{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/orders`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

let waits: number[] = [];
beforeEach(() => {
  seen.length = 0;
  waits = [];
});

const options = (more: HttpClientOptions = {}): HttpClientOptions => ({
  sleep: async (ms) => void waits.push(ms),
  random: () => 0.5,
  baseDelayMs: 100,
  ...more,
});

const ok = { status: 200, body: '{"orders":[1,2]}' };

async function failure(promise: Promise<unknown>): Promise<MarketplaceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MarketplaceError);
  return err as MarketplaceError;
}

describe('the marketplace HTTP client', () => {
  it('sends JSON with the given headers and answers the parsed body', async () => {
    script = [ok];
    const body = await jsonClient('shopify', options()).request({ method: 'POST', url, headers: { 'X-Token': 'abc' }, body: { q: 1 } });
    expect(body).toEqual({ orders: [1, 2] });
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"q":1}' });
    expect(seen[0].headers).toMatchObject({ 'x-token': 'abc', 'content-type': 'application/json', accept: 'application/json' });
  });

  it('retries a 429 after the seconds Retry-After asks for', async () => {
    script = [{ status: 429, headers: { 'retry-after': '2' } }, ok];
    expect(await jsonClient('meli', options()).request({ url })).toEqual({ orders: [1, 2] });
    expect(seen).toHaveLength(2);
    expect(waits).toEqual([2000]);
  });

  it('backs off exponentially with jitter when a 429 or 5xx has no Retry-After', async () => {
    script = [{ status: 429 }, { status: 500 }, { status: 503 }, ok];
    await jsonClient('amazon', options()).request({ url });
    // random 0.5: half of each step plus a quarter; steps of 100, 200, 400 ms.
    expect(waits).toEqual([75, 150, 300]);
  });

  it('never computes a wait past the cap', () => {
    expect(backoffMs(30, { baseDelayMs: 500, maxDelayMs: 30_000 }, () => 0.999)).toBeLessThanOrEqual(30_000);
  });

  it('gives up after the last attempt with a rate-limit error the sync can record', async () => {
    script = [{ status: 429, body: '{"errors":[{"code":"QuotaExceeded"}]}' }];
    const err = await failure(jsonClient('amazon', options({ maxAttempts: 3 })).request({ url }));
    expect(err).toMatchObject({ channel: 'amazon', code: 'rate_limited', status: 429, attempts: 3 });
    expect(err.message).toMatch(/^amazon: .*429.*QuotaExceeded.*gave up after 3 attempts/);
    expect(seen).toHaveLength(3);
  });

  it('does not wait when the marketplace asks for longer than the cap, and says how long it asked', async () => {
    script = [{ status: 429, headers: { 'retry-after': '120' } }, ok];
    const err = await failure(jsonClient('shopify', options({ maxDelayMs: 30_000 })).request({ url }));
    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 120_000, attempts: 1 });
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('reports a 5xx that persists as unavailable', async () => {
    script = [{ status: 502 }];
    const err = await failure(jsonClient('shopify', options({ maxAttempts: 2 })).request({ url }));
    expect(err).toMatchObject({ code: 'unavailable', status: 502, attempts: 2 });
  });

  it('times out an attempt that does not answer and tries again', async () => {
    script = ['hang', ok];
    expect(await jsonClient('shopify', options({ timeoutMs: 200 })).request({ url })).toEqual({ orders: [1, 2] });
    expect(seen).toHaveLength(2);
  });

  it('reports a marketplace that never answers as a timeout', async () => {
    script = ['hang'];
    const err = await failure(jsonClient('shopify', options({ timeoutMs: 100, maxAttempts: 2 })).request({ url }));
    expect(err).toMatchObject({ code: 'timeout', status: null, attempts: 2 });
  });

  it('stops at once, without retrying, when the caller aborts', async () => {
    script = ['hang'];
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('sync budget spent')), 100);
    await expect(jsonClient('shopify', options({ timeoutMs: 5_000 })).request({ url, signal: controller.signal })).rejects.toThrow('sync budget spent');
    expect(seen).toHaveLength(1);
  });

  it('stops waiting between attempts when the caller aborts', async () => {
    script = [{ status: 503 }];
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('sync budget spent')), 100);
    const client = jsonClient('amazon', { baseDelayMs: 60_000, maxDelayMs: 60_000 });
    await expect(client.request({ url, signal: controller.signal })).rejects.toThrow('sync budget spent');
    expect(seen).toHaveLength(1);
  });

  it('refuses bad credentials without retrying', async () => {
    script = [{ status: 401, body: '{"message":"invalid access token"}' }];
    const err = await failure(jsonClient('meli', options()).request({ url }));
    expect(err).toMatchObject({ code: 'unauthorized', status: 401, attempts: 1 });
    expect(err.message).toBe('meli: the credentials were refused (401): {"message":"invalid access token"}');
  });

  it('tells a missing resource and a refused request apart', async () => {
    script = [{ status: 404 }];
    expect(await failure(jsonClient('meli', options()).request({ url }))).toMatchObject({ code: 'not_found', status: 404 });
    seen.length = 0;
    script = [{ status: 400, body: '{"message":"bad offset"}' }];
    expect(await failure(jsonClient('meli', options()).request({ url }))).toMatchObject({ code: 'rejected', status: 400 });
    expect(seen).toHaveLength(1);
  });

  it('reports a 200 that is not JSON as a bad response', async () => {
    script = [{ status: 200, body: '<html>maintenance</html>' }];
    expect(await failure(jsonClient('amazon', options()).request({ url }))).toMatchObject({ code: 'bad_response', status: 200 });
  });

  it('retries a 200 whose body says throttled, waiting what the body asks', async () => {
    script = [{ status: 200, body: '{"throttled":1500}' }, ok];
    const throttled = (body: unknown) => (body as { throttled?: number }).throttled;
    expect(await jsonClient('shopify', options()).request({ url, throttled })).toEqual({ orders: [1, 2] });
    expect(waits).toEqual([1500]);
  });

  it('retries when the marketplace cannot be reached, then says so', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const err = await failure(jsonClient('amazon', options({ maxAttempts: 2 })).request({ url: `http://127.0.0.1:${port}/x` }));
    expect(err).toMatchObject({ code: 'network', status: null, attempts: 2 });
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-03-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('1.5', now)).toBe(1500);
    expect(retryAfterMs('Sat, 01 Mar 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
