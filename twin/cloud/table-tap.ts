import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through in front of DynamoDB Local that counts the table operations by kind (the
 * `X-Amz-Target` of each request: GetItem, UpdateItem, ...), so a benchmark can say what a
 * request costs the table. Bytes are forwarded unchanged.
 */
export async function startTableTap(target: string): Promise<{ url: string; counts: Map<string, number>; reset(): void; close(): void }> {
  const to = new URL(target);
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const op = String(req.headers['x-amz-target'] ?? 'unknown').replace(/^DynamoDB_\d+\./, '');
    counts.set(op, (counts.get(op) ?? 0) + 1);
    forward(to, req, res);
  });
  return { ...(await listenLocal(server)), counts, reset: () => counts.clear() };
}

/** Passes a request to `to` and its answer back, bytes unchanged (the lane's endpoints in front of DynamoDB Local). */
export function forward(to: URL, req: IncomingMessage, res: ServerResponse): void {
  const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

/** Listens on a free loopback port: its URL, and how to close it with its connections. */
export async function listenLocal(server: Server): Promise<{ url: string; close(): void }> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
