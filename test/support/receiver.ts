import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { deliveryProblem } from './contract';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: number;
}

/** A local webhook receiver that records every request and answers with `status()`; each delivery is held to openapi.json. */
export function useReceiver() {
  const r = {
    url: '',
    received: [] as Received[],
    status: (_req: Received) => 200,
    server: undefined as Server | undefined,
    waiters: [] as (() => void)[],
    /** Resolves once `n` requests have arrived (woken by each arrival, no polling). */
    async until(n: number, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (r.received.length < n) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${r.received.length} requests, not ${n}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
          r.waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
    },
    clear() {
      r.received.length = 0;
      r.status = () => 200;
    },
  };
  beforeAll(async () => {
    r.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const got = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        r.received.push(got);
        res.writeHead(r.status(got), { 'content-type': 'text/plain' });
        res.end('ok');
        for (const wake of r.waiters.splice(0)) wake();
      });
    });
    r.server.listen(0, '127.0.0.1');
    await once(r.server, 'listening');
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => {
    r.server?.closeAllConnections();
    r.server?.close();
    // Every delivery received is held to openapi.json's webhooks: a mismatch fails this file.
    const problems = [...new Set(r.received.map((d) => deliveryProblem(d.headers, d.body)).filter(Boolean))];
    if (problems.length) throw new Error(`Contract: deliveries break openapi.json's webhooks:\n${problems.join('\n')}`);
  });
  return r;
}
