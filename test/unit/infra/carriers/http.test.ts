import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { BadGateway, GatewayTimeout, Unavailable, ValidationFailed } from '#core/errors';
import { CarrierError, carrierFailure, carrierHttp } from '#infra/carriers/http';

/**
 * A carrier that answers from a script: each request takes the next answer (status, body, headers,
 * delay). Each run of a test has a path of its own, so a request of an earlier run that reaches
 * the server late (a loaded machine) takes nothing of a later run's script.
 */
type Answer = { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number };
let server: Server;
let base = '';
let runs = 0;
let current = '';
let script: Answer[] = [];
let seen = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== current) {
      res.writeHead(410).end();
      return;
    }
    seen++;
    const next = script.shift() ?? { status: 200, body: { ok: true } };
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body === undefined ? '' : typeof next.body === 'string' ? next.body : JSON.stringify(next.body));
    }, next.delayMs ?? 0);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const message = (b: unknown) => (b as { errors?: { message: string }[] })?.errors?.[0]?.message;
const run = (answers: Answer[], idempotent: boolean, opts = {}) => {
  script = answers;
  seen = 0;
  const path = (current = `/x/${++runs}`);
  const waits: number[] = [];
  const http = carrierHttp('fedex', message, { sleep: async (ms) => void waits.push(ms), random: () => 0.5, ...opts });
  return { waits, call: () => http.request({ method: 'POST', url: `${base}${path}`, body: {}, idempotent }) };
};

describe('the carriers HTTP client', () => {
  it("waits what Retry-After asks after a 429, else backs off exponentially, and answers the carrier's body", async () => {
    const { waits, call } = run([{ status: 429, headers: { 'retry-after': '2' } }, { status: 503 }, { status: 502 }, { status: 200, body: { done: 1 } }], false);
    await expect(call()).resolves.toEqual({ done: 1 });
    expect(waits).toEqual([2000, 450, 900]);
  });

  it('gives up after 4 attempts on 5xx with the carrier message, and never waits longer than the cap', async () => {
    const { waits, call } = run(Array.from({ length: 4 }, () => ({ status: 500, body: { errors: [{ message: 'down for maintenance' }] }, headers: { 'retry-after': '60' } })), true);
    const err = (await call().catch((e) => e)) as CarrierError;
    expect(err).toBeInstanceOf(CarrierError);
    expect([err.code, err.status, err.attempts, err.carrierMessage]).toEqual(['unavailable', 500, 4, 'down for maintenance']);
    expect(waits).toEqual([4000, 4000, 4000]);
    expect(carrierFailure(err)).toBeInstanceOf(BadGateway);
  });

  it('does not send a label request again after a timeout, but does a read', async () => {
    const label = run([{ status: 200, delayMs: 400 }], false, { timeoutMs: 100 });
    const err = (await label.call().catch((e) => e)) as CarrierError;
    expect([err.code, err.attempts, seen]).toEqual(['timeout', 1, 1]);
    expect(carrierFailure(err)).toBeInstanceOf(GatewayTimeout);
    const read = run([{ status: 200, delayMs: 400 }, { status: 200, body: { tracked: true } }], true, { timeoutMs: 100 });
    await expect(read.call()).resolves.toEqual({ tracked: true });
    expect(seen).toBe(2);
  });

  it('maps refusals without retrying: 401 and 400 to 422 naming carrier, a body that is not JSON to 502', async () => {
    const refused = run([{ status: 401, body: { errors: [{ message: 'bad key' }] } }], true);
    const e401 = (await refused.call().catch((e) => e)) as CarrierError;
    expect([e401.code, seen]).toEqual(['unauthorized', 1]);
    expect((carrierFailure(e401) as ValidationFailed).errors.carrier[0]).toMatch(/FedEx refused the account's fedex credentials \(401: bad key\)/);
    const bad = run([{ status: 400, body: { errors: [{ message: 'postal code' }] } }], true);
    expect((carrierFailure((await bad.call().catch((e) => e)) as CarrierError) as ValidationFailed).errors.carrier[0]).toBe('FedEx refused the request (400): postal code');
    const html = run([{ status: 200, body: '<html>oops</html>' }], true);
    const e = (await html.call().catch((x) => x)) as CarrierError;
    expect(e.code).toBe('bad_response');
    expect(carrierFailure(e)).toBeInstanceOf(BadGateway);
    const busy = run(Array.from({ length: 4 }, () => ({ status: 429 })), true);
    const still = carrierFailure((await busy.call().catch((x) => x)) as CarrierError);
    expect(still).toBeInstanceOf(Unavailable);
    expect(still.headers['Retry-After']).toBe('30');
  });
});
