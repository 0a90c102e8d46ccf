import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  checkEndpointUrl,
  forbiddenAddressMessage,
  postWebhook,
  type DeliveryRequest,
} from '#infra/webhook-http';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface Receiver {
  port: number;
  requests: Seen[];
  connections: number;
}

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();

afterEach(async () => {
  // Kept-alive client sockets would hold close() open.
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A local receiver that records what reached it; `answer` replies once the body is in. */
async function receiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end('ok')): Promise<Receiver> {
  const state: Receiver = { port: 0, requests: [], connections: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  server.on('connection', () => state.connections++);
  state.port = await listen(server);
  return state;
}

function delivery(url: string, extra: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return { url, body: '{"event":"order.created"}', headers: {}, timeoutMs: 2000, reach: 'any', ...extra };
}

describe('postWebhook against a local receiver', () => {
  it('delivers a 2xx with the exact body bytes and the caller headers', async () => {
    const r = await receiver((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    const body = JSON.stringify({ event: 'order.created', name: 'Señor Ñandú ✓', n: 1 });
    const result = await postWebhook(
      delivery(`http://127.0.0.1:${r.port}/hooks/in?x=1`, {
        body,
        headers: { 'X-Despacho-Signature': 'sha256=abc123', 'X-Despacho-Event': 'order.created' },
      }),
    );
    expect(result).toMatchObject({ ok: true, statusCode: 204, error: null });
    expect(Number.isInteger(result.responseTimeMs)).toBe(true);
    expect(r.requests).toHaveLength(1);
    const seen = r.requests[0];
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/hooks/in?x=1');
    expect(seen.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(seen.headers['x-despacho-signature']).toBe('sha256=abc123');
    expect(seen.headers['x-despacho-event']).toBe('order.created');
    expect(seen.headers['user-agent']).toBe('Despacho-Webhooks/1.0');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('keeps its own User-Agent, Content-Type and Content-Length whatever the caller passes', async () => {
    const r = await receiver();
    await postWebhook(delivery(`http://127.0.0.1:${r.port}/`, { headers: { 'user-agent': 'evil', 'CONTENT-TYPE': 'text/plain', 'Content-Length': '1' } }));
    expect(r.requests[0].headers['user-agent']).toBe('Despacho-Webhooks/1.0');
    expect(r.requests[0].headers['content-type']).toBe('application/json');
    expect(r.requests[0].body.toString()).toBe('{"event":"order.created"}');
  });

  it('reports a 500 as not ok with its status code', async () => {
    const r = await receiver((_req, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    const result = await postWebhook(delivery(`http://127.0.0.1:${r.port}/`));
    expect(result).toMatchObject({ ok: false, statusCode: 500 });
    expect(result.error).toBe('HTTP 500');
  });

  it('reports a 410 with its status code', async () => {
    const r = await receiver((_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    expect(await postWebhook(delivery(`http://127.0.0.1:${r.port}/`))).toMatchObject({ ok: false, statusCode: 410 });
  });

  it('does not follow a 302 and reports it as a failure', async () => {
    const target = await receiver();
    const r = await receiver((_req, res) => {
      res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/elsewhere` });
      res.end();
    });
    const result = await postWebhook(delivery(`http://127.0.0.1:${r.port}/`));
    expect(result).toMatchObject({ ok: false, statusCode: 302 });
    expect(result.error).toMatch(/redirects are not followed/);
    expect(target.requests).toHaveLength(0);
  });

  it('times out a receiver that never answers, within about the timeout', async () => {
    const r = await receiver(() => {
      /* never answer */
    });
    const result = await postWebhook(delivery(`http://127.0.0.1:${r.port}/`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'Timed out after 300 ms' });
    expect(result.responseTimeMs).toBeGreaterThanOrEqual(290);
    expect(result.responseTimeMs).toBeLessThan(1000);
  });

  it('counts the body in the timeout: headers then a body that never ends is a timeout', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('partial');
    });
    const result = await postWebhook(delivery(`http://127.0.0.1:${r.port}/`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'Timed out after 300 ms' });
    expect(result.responseTimeMs).toBeLessThan(1000);
  });

  it('stops reading after 64 KiB of an endless body and answers with the status', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const result = await postWebhook(delivery(`http://127.0.0.1:${r.port}/`, { timeoutMs: 2000 }));
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(result.responseTimeMs).toBeLessThan(1500);
  });

  it('gives statusCode null and ECONNREFUSED when nothing listens', async () => {
    const closed = await listen(net.createServer());
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const result = await postWebhook(delivery(`http://127.0.0.1:${closed}/`));
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'ECONNREFUSED' });
  });

  it('reuses a kept-alive connection for the next delivery', async () => {
    const r = await receiver();
    expect((await postWebhook(delivery(`http://127.0.0.1:${r.port}/`))).ok).toBe(true);
    expect((await postWebhook(delivery(`http://127.0.0.1:${r.port}/`))).ok).toBe(true);
    expect(r.requests).toHaveLength(2);
    expect(r.connections).toBe(1);
  });

  it('retries once on a fresh connection when the server already closed the kept-alive one', async () => {
    // A raw server: answers the first request on a connection with keep-alive, then drops the
    // connection when a second request arrives on it (what a server's idle timeout looks like).
    let connections = 0;
    let answered = 0;
    let dropped = 0;
    const server = net.createServer((socket) => {
      connections++;
      let requestsHere = 0;
      let buffered = '';
      socket.on('data', (data) => {
        buffered += data.toString('latin1');
        while (buffered.includes('\r\n\r\n')) {
          const end = buffered.indexOf('\r\n\r\n') + 4;
          const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
          if (buffered.length < end + length) return;
          buffered = buffered.slice(end + length);
          requestsHere++;
          if (requestsHere > 1) {
            dropped++;
            socket.destroy();
            return;
          }
          answered++;
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n');
        }
      });
    });
    const port = await listen(server);
    expect((await postWebhook(delivery(`http://127.0.0.1:${port}/`))).ok).toBe(true);
    const second = await postWebhook(delivery(`http://127.0.0.1:${port}/`));
    expect(second).toMatchObject({ ok: true, statusCode: 200 });
    expect(dropped).toBe(1);
    expect(connections).toBe(2);
    expect(answered).toBe(2);
  });

  it('never throws, even for a header value Node refuses', async () => {
    const r = await receiver();
    const result = await postWebhook(delivery(`http://127.0.0.1:${r.port}/`, { headers: { 'X-Bad': 'a\r\nInjected: 1' } }));
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toBeTruthy();
    expect(r.requests).toHaveLength(0);
  });

  it('refuses a URL that is not http or https', async () => {
    const result = await postWebhook(delivery('ftp://example.com/x'));
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/https:\/\//);
  });
});

describe('postWebhook with the public reach', () => {
  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/`],
    ['localhost', (port: number) => `http://localhost:${port}/`],
    ['[::1]', (port: number) => `http://[::1]:${port}/`],
    ['169.254.169.254 (instance metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['10.1.2.3', () => 'http://10.1.2.3/'],
    ['[::ffff:127.0.0.1] (IPv4-mapped)', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['0x7f.1 (another spelling of 127.0.0.1)', (port: number) => `http://0x7f.1:${port}/`],
    ['https://127.0.0.1', (port: number) => `https://127.0.0.1:${port}/`],
  ])('refuses %s without connecting', async (_name, urlFor) => {
    const r = await receiver();
    const result = await postWebhook(delivery(urlFor(r.port), { reach: 'public', timeoutMs: 1000 }));
    expect(result).toMatchObject({ ok: false, statusCode: null, error: forbiddenAddressMessage });
    expect(result.responseTimeMs).toBeLessThan(500);
    expect(r.connections).toBe(0);
    expect(r.requests).toHaveLength(0);
  });

  it('checks the address DNS resolves to: localhost is refused with the public reach and delivered with any', async () => {
    const r = await receiver();
    const refused = await postWebhook(delivery(`http://localhost:${r.port}/`, { reach: 'public' }));
    expect(refused).toMatchObject({ ok: false, statusCode: null, error: forbiddenAddressMessage });
    expect(r.connections).toBe(0);

    const delivered = await postWebhook(delivery(`http://localhost:${r.port}/`, { reach: 'any' }));
    expect(delivered).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(r.requests).toHaveLength(1);
  });

  it('does not let a connection kept alive for a private delivery serve a public one', async () => {
    const r = await receiver();
    expect((await postWebhook(delivery(`http://localhost:${r.port}/`, { reach: 'any' }))).ok).toBe(true);
    const refused = await postWebhook(delivery(`http://localhost:${r.port}/`, { reach: 'public' }));
    expect(refused.error).toBe(forbiddenAddressMessage);
    expect(r.requests).toHaveLength(1);
  });

  it('reports a host that does not resolve as ENOTFOUND', async () => {
    const result = await postWebhook(delivery('http://no-such-host.invalid/', { reach: 'public' }));
    expect(result.statusCode).toBeNull();
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(result.error);
  });
});

describe('checkEndpointUrl', () => {
  it('accepts a plain https URL, and http only when allowed', () => {
    expect(checkEndpointUrl('https://hooks.example.com/despacho?x=1', { allowHttp: false })).toBeNull();
    expect(checkEndpointUrl('http://localhost:4000/hooks', { allowHttp: true })).toBeNull();
    expect(checkEndpointUrl('http://hooks.example.com/', { allowHttp: false })).toMatch(/https:\/\//);
  });

  it.each([
    ['ftp://example.com/x', 'another scheme'],
    ['javascript:alert(1)', 'javascript'],
    ['file:///etc/passwd', 'file'],
    ['https://user:secret@example.com/', 'credentials'],
    ['https://user@example.com/', 'a username'],
    ['https://example.com/#frag', 'a fragment'],
    ['https://example.com/#', 'an empty fragment'],
    [`https://example.com/${'a'.repeat(481)}`, 'more than 500 characters'],
    ['not a url', 'garbage with spaces'],
    ['notaurl', 'garbage'],
    ['https://', 'no host'],
    ['https://exa\nmple.com/', 'a newline'],
    ['', 'empty'],
  ])('refuses %s (%s)', (url) => {
    const message = checkEndpointUrl(url, { allowHttp: true });
    expect(typeof message).toBe('string');
    expect(message!.length).toBeGreaterThan(0);
  });

  it('accepts exactly 500 characters', () => {
    const base = 'https://example.com/';
    expect(checkEndpointUrl(base + 'a'.repeat(500 - base.length), { allowHttp: false })).toBeNull();
    expect(checkEndpointUrl(base + 'a'.repeat(501 - base.length), { allowHttp: false })).toMatch(/500/);
  });
});
