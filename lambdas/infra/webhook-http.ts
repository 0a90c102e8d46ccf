import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { mayReach, type WebhookReach } from './forbidden-address';

/**
 * The outbound HTTP client of webhook deliveries. Partners choose the URL, so this is where a
 * server-side request forgery would happen: the address is checked at delivery time, after DNS
 * resolution, and the socket connects to exactly the address that was checked (a custom `lookup`),
 * so a hostname that resolved to a public address when the subscription was made and to
 * 169.254.169.254 now is still refused, and no second resolution can slip in between check and
 * connect (DNS rebinding).
 */

export interface DeliveryRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Which addresses it may go to (forbidden-address.ts `WebhookReach`): `public` in production. */
  reach: WebhookReach;
}

export interface DeliveryResult {
  ok: boolean;
  statusCode: number | null;
  responseTimeMs: number;
  error: string | null;
}

export const userAgent = 'Despacho-Webhooks/1.0';
export const maxEndpointUrlLength = 500;
export const forbiddenAddressMessage = 'The endpoint resolves to a private or reserved address.';

/** More than this of a response body is never read: nobody needs it and it must not fill memory. */
const maxResponseBodyBytes = 64 * 1024;

export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS';
  constructor() {
    super(forbiddenAddressMessage);
    this.name = 'ForbiddenAddressError';
  }
}

// ---------------------------------------------------------------------------------------------
// Endpoint URLs

/** Null when `url` may be a webhook endpoint, else a message for the partner. */
export function checkEndpointUrl(url: string, opts: { allowHttp: boolean }): string | null {
  if (typeof url !== 'string' || url.length === 0) return 'The endpoint URL is required.';
  if (url.length > maxEndpointUrlLength) return `The endpoint URL must be at most ${maxEndpointUrlLength} characters.`;
  // The URL parser silently drops tabs and newlines and trims spaces; refuse them instead, so the
  // URL we store is the URL we call.
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return 'The endpoint URL must not contain spaces or control characters.';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'The endpoint URL is not a valid URL.';
  }
  if (parsed.protocol !== 'https:' && !(opts.allowHttp && parsed.protocol === 'http:')) {
    return opts.allowHttp ? 'The endpoint URL must start with https:// or http://.' : 'The endpoint URL must start with https://.';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'The endpoint URL must not contain a username or password.';
  // `hash` is empty for a bare trailing '#', so look at the text; a valid URL has '#' only there.
  if (url.includes('#')) return 'The endpoint URL must not contain a fragment (#...).';
  if (parsed.hostname === '') return 'The endpoint URL must name a host.';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Delivery

/**
 * Resolves every address of the host and refuses the connection if any is forbidden (a host with
 * one public and one private address could otherwise be steered to the private one). Node then
 * connects to the addresses handed back here and nothing else.
 */
function guardedLookup(reach: WebhookReach): net.LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family, hints: options.hints }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      }
      if (addresses.some((a) => !mayReach(a.address, reach))) {
        return callback(new ForbiddenAddressError(), []);
      }
      // With autoSelectFamily (the default from Node 20) net asks for every address.
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

const lookups: Record<WebhookReach, net.LookupFunction> = { public: guardedLookup('public'), loopback: guardedLookup('loopback'), any: guardedLookup('any') };

/**
 * Keep-alive agents, so a busy delivery run reuses connections. Separate pools per reach:
 * the pool key is host and port only, and a reused socket skips the lookup, so a socket opened
 * with a wider reach must never serve a request of a narrower one.
 */
const agents = new Map<string, http.Agent>();

function agentFor(protocol: 'http:' | 'https:', reach: WebhookReach): http.Agent {
  const key = `${protocol}${reach}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: 50 };
    agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** Framing and identity are ours; a caller's value for these is dropped, not merged. */
const reservedHeaders = new Set(['user-agent', 'content-type', 'content-length', 'host', 'connection', 'transfer-encoding']);

interface Attempt {
  statusCode: number | null;
  error: string | null;
  /** The request died on a kept-alive socket the server had already closed: safe to try once more. */
  staleSocket: boolean;
}

function describe(err: unknown): string {
  if (err instanceof ForbiddenAddressError) return err.message;
  const e = err as NodeJS.ErrnoException;
  return e?.code || e?.message || 'Connection failed';
}

function httpOutcome(status: number): Attempt {
  if (status >= 200 && status <= 299) return { statusCode: status, error: null, staleSocket: false };
  const error = status >= 300 && status <= 399 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
  return { statusCode: status, error, staleSocket: false };
}

function attempt(url: URL, host: string, body: Buffer, headers: Record<string, string>, reach: WebhookReach, deadline: number, timeoutMs: number): Promise<Attempt> {
  return new Promise((resolve) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    let response: http.IncomingMessage | undefined;
    const settle = (outcome: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    // One clock for the whole exchange: lookup, connect, headers and body.
    const timer = setTimeout(() => {
      settle({ statusCode: null, error: `Timed out after ${timeoutMs} ms`, staleSocket: false });
      response?.destroy();
      request?.destroy();
    }, Math.max(0, deadline - performance.now()));

    const protocol = url.protocol as 'http:' | 'https:';
    try {
      request = (protocol === 'https:' ? https : http).request({
        protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        agent: agentFor(protocol, reach),
        lookup: lookups[reach],
      });
    } catch (err) {
      // Invalid header names or values throw synchronously.
      settle({ statusCode: null, error: describe(err), staleSocket: false });
      return;
    }
    const sent = request;

    sent.on('error', (err: NodeJS.ErrnoException) => {
      const stale = response === undefined && sent.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      settle({ statusCode: null, error: describe(err), staleSocket: stale });
    });
    sent.on('response', (res) => {
      response = res;
      // No redirect is followed: the status is the answer, whatever Location says.
      const done = () => settle(httpOutcome(res.statusCode ?? 0));
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen >= maxResponseBodyBytes) {
          // Enough: answer now, and drop the socket rather than drain the rest into the pool.
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      // The status is known even if the body is cut short.
      res.on('error', done);
      res.on('close', done);
    });
    sent.end(body);
  });
}

/**
 * POSTs one webhook. Never throws: a network failure is a result with `statusCode: null` and a
 * short `error` ('ECONNREFUSED', 'Timed out after 5000 ms', the forbidden-address message).
 */
export async function postWebhook(req: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const timeoutMs = Math.max(1, req.timeoutMs);
  const result = (outcome: Omit<Attempt, 'staleSocket'>): DeliveryResult => ({
    ok: outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode <= 299,
    statusCode: outcome.statusCode,
    responseTimeMs: Math.round(performance.now() - started),
    error: outcome.error,
  });

  // Scheme policy (https only in production) belongs to subscription time; here any http(s) URL
  // that is otherwise well formed may be called.
  const problem = checkEndpointUrl(req.url, { allowHttp: true });
  if (problem) return result({ statusCode: null, error: problem });
  const url = new URL(req.url);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // Node connects to an IP literal without calling `lookup`, so it is judged here.
  if (net.isIP(host) !== 0 && !mayReach(host, req.reach)) {
    return result({ statusCode: null, error: forbiddenAddressMessage });
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!reservedHeaders.has(name.toLowerCase())) headers[name] = value;
  }
  const body = Buffer.from(req.body, 'utf8');
  headers['User-Agent'] = userAgent;
  headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(body.length);

  const deadline = started + timeoutMs;
  let outcome = await attempt(url, host, body, headers, req.reach, deadline, timeoutMs);
  // A pooled socket can be closed by the server (or go stale while a Lambda is frozen) just as we
  // pick it; that says nothing about the partner, so try once more on a fresh connection.
  if (outcome.staleSocket && performance.now() < deadline) {
    outcome = await attempt(url, host, body, headers, req.reach, deadline, timeoutMs);
  }
  return result(outcome);
}
