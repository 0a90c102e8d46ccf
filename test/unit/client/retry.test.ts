import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createDespachoClient } from '#clients/typescript/index';
import { retryAfterMs } from '#clients/typescript/retry';

/** A local service whose answers the test scripts, one per request, recording what it got. */
let server: Server;
let base = '';
let script: ((req: IncomingMessage, body: string) => { status: number; headers?: Record<string, string>; body?: unknown })[] = [];
const got: { method: string; at: number; body: string; key?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      got.push({ method: req.method!, at: Date.now(), body, key: req.headers['idempotency-key'] as string | undefined });
      const next: (typeof script)[number] = script.shift() ?? (() => ({ status: 200, body: { success: true, data: { status: 'ok' } } }));
      const a = next(req, body);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body ?? { success: a.status < 400, message: 'scripted' }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

function setUp(...answers: typeof script) {
  script = answers;
  got.length = 0;
}

const client = (retry?: Parameters<typeof createDespachoClient>[0]['retry']) => createDespachoClient({ baseUrl: base, token: 't', retry });

describe('the typed client retries', () => {
  it('a 429 after the seconds Retry-After gives, then answers the success', async () => {
    setUp(() => ({ status: 429, headers: { 'Retry-After': '1' } }));
    const res = await client().GET('/api/health');
    expect(res.response.status).toBe(200);
    expect(got).toHaveLength(2);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(950);
  });

  it('a 503 of a GET until the service answers, within the attempts allowed, then gives the last answer', async () => {
    setUp(...Array.from({ length: 5 }, () => () => ({ status: 503, headers: { 'Retry-After': '0' } })));
    const res = await client({ attempts: 3 }).GET('/api/health');
    expect(res.response.status).toBe(503);
    expect(got).toHaveLength(3);
  });

  it('a POST with an Idempotency-Key on a 500, sending the same body and key again', async () => {
    setUp(() => ({ status: 500 }));
    const res = await client({ baseDelayMs: 1 }).POST('/api/v1/orders', { body: { order_number: 'A-1' } as never, headers: { 'Idempotency-Key': '3f0c6c4e-8a8e-4a43-9c31-0d3f5f1d2a10' } });
    expect(res.response.status).toBe(200);
    expect(got.map((g) => [g.method, g.key, g.body])).toEqual([
      ['POST', '3f0c6c4e-8a8e-4a43-9c31-0d3f5f1d2a10', '{"order_number":"A-1"}'],
      ['POST', '3f0c6c4e-8a8e-4a43-9c31-0d3f5f1d2a10', '{"order_number":"A-1"}'],
    ]);
  });

  it('not a POST without an Idempotency-Key on a 500 (it might have been done), nor a 422', async () => {
    setUp(() => ({ status: 500 }));
    expect((await client({ baseDelayMs: 1 }).POST('/api/v1/orders', { body: {} as never })).response.status).toBe(500);
    expect(got).toHaveLength(1);
    setUp(() => ({ status: 422 }));
    expect((await client({ baseDelayMs: 1 }).GET('/api/health')).response.status).toBe(422);
    expect(got).toHaveLength(1);
  });

  it('not when Retry-After asks for longer than the longest wait: the 429 is returned at once', async () => {
    setUp(() => ({ status: 429, headers: { 'Retry-After': '120' } }));
    const started = Date.now();
    expect((await client({ maxDelayMs: 5_000 }).GET('/api/health')).response.status).toBe(429);
    expect(got).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('never with retry: false', async () => {
    setUp(() => ({ status: 429, headers: { 'Retry-After': '0' } }));
    expect((await client(false).GET('/api/health')).response.status).toBe(429);
    expect(got).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and an HTTP date, and nothing from a bad value', () => {
    const now = Date.parse('2026-12-07T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Mon, 07 Dec 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Mon, 07 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
