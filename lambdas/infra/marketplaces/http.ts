import { setTimeout as delay } from 'node:timers/promises';
import type { SyncChannel } from '#core/orders/marketplace';

/**
 * The JSON HTTP client every marketplace connector calls through (global fetch). Each attempt has
 * its own timeout, combined with the caller's signal (the sync's time budget). 429, 5xx, timeouts
 * and network failures are retried up to `maxAttempts`, waiting what `Retry-After` asks or, without
 * it, an exponential backoff with jitter, never longer than `maxDelayMs`. A marketplace that asks
 * for a longer wait than that is not waited for: the error carries `retryAfterMs` so the sync can
 * come back later. Every failure ends as one `MarketplaceError`, which the sync records.
 * Connectors only read (Shopify's POST is a query), so any request may be sent again.
 */

export interface RetryPolicy {
  maxAttempts: number;
  /** The first backoff step; each further attempt doubles it. */
  baseDelayMs: number;
  /** The longest single wait, asked by the marketplace or computed. */
  maxDelayMs: number;
  /** One attempt, from sending to the last byte of the body. */
  timeoutMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 20_000 };

export interface HttpClientOptions extends Partial<RetryPolicy> {
  /** How the client waits between attempts (tests pass one that records and returns at once). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** [0, 1), for the jitter. */
  random?: () => number;
}

export type MarketplaceErrorCode =
  | 'unauthorized' // 401, 403: the account's credentials were refused
  | 'not_found' // 404
  | 'rejected' // another 4xx, or a GraphQL error: the request itself is wrong
  | 'rate_limited' // 429 (or a throttle in the body) after every attempt, or a wait longer than allowed
  | 'unavailable' // 5xx after every attempt
  | 'timeout' // no complete answer within timeoutMs, on every attempt
  | 'network' // no connection, on every attempt
  | 'bad_response'; // an answer that is not the JSON the connector expects

export class MarketplaceError extends Error {
  override readonly name = 'MarketplaceError';
  /** Requests made before giving up. */
  readonly attempts: number;
  /** Set when the marketplace asked for a longer wait than the policy allows: come back after it. */
  readonly retryAfterMs: number | undefined;
  constructor(
    readonly channel: SyncChannel,
    readonly code: MarketplaceErrorCode,
    /** The HTTP status of the last answer; null when there was none (timeout, network). */
    readonly status: number | null,
    message: string,
    more: { attempts?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: more.cause });
    this.attempts = more.attempts ?? 1;
    this.retryAfterMs = more.retryAfterMs;
  }
}

export interface JsonRequest {
  method?: 'GET' | 'POST';
  url: string | URL;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
  /**
   * For marketplaces that say "slow down" in a 200 body (Shopify's THROTTLED): undefined when the
   * body is an answer; else the wait asked for (ms), or null to back off.
   */
  throttled?: (body: unknown) => number | null | undefined;
}

export interface JsonClient {
  readonly channel: SyncChannel;
  request<T = unknown>(req: JsonRequest): Promise<T>;
}

/** SP-API asks for `<app>/<version> (Language=<language>)`; the others take any. */
export const userAgent = 'Despacho-Marketplaces/1.0 (Language=JavaScript)';

const defaultSleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal });

/** `Retry-After` as seconds (`2`, `1.5`) or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** "Equal jitter": half the exponential step for sure, the other half at random. */
export function backoffMs(attempt: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

const snippet = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...` : text);

/** A failed attempt: what to say if it is the last, whether another may follow, and after how long. */
interface Failure {
  code: MarketplaceErrorCode;
  status: number | null;
  message: string;
  retry: boolean;
  waitMs?: number;
  cause?: unknown;
}

export function jsonClient(channel: SyncChannel, options: HttpClientOptions = {}): JsonClient {
  const policy: RetryPolicy = {
    maxAttempts: options.maxAttempts ?? defaultRetryPolicy.maxAttempts,
    baseDelayMs: options.baseDelayMs ?? defaultRetryPolicy.baseDelayMs,
    maxDelayMs: options.maxDelayMs ?? defaultRetryPolicy.maxDelayMs,
    timeoutMs: options.timeoutMs ?? defaultRetryPolicy.timeoutMs,
  };
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;

  const fail = (code: MarketplaceErrorCode, status: number | null, message: string, more: Partial<Failure> = {}): Failure => ({
    code,
    status,
    message,
    retry: false,
    ...more,
  });

  async function attempt(req: JsonRequest, path: string): Promise<{ body: unknown } | Failure> {
    const signals = [AbortSignal.timeout(policy.timeoutMs), ...(req.signal ? [req.signal] : [])];
    let res: Response;
    let text: string;
    try {
      res = await fetch(req.url, {
        method: req.method ?? 'GET',
        headers: { accept: 'application/json', 'user-agent': userAgent, ...(req.body === undefined ? {} : { 'content-type': 'application/json' }), ...req.headers },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: AbortSignal.any(signals),
      });
      text = await res.text();
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason;
      if ((err as Error).name === 'TimeoutError') return fail('timeout', null, `${path} did not answer within ${policy.timeoutMs} ms`, { retry: true, cause: err });
      const reason = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
      return fail('network', null, `${path} could not be reached (${reason})`, { retry: true, cause: err });
    }
    const status = res.status;
    if (status === 429 || status >= 500) {
      const code = status === 429 ? 'rate_limited' : 'unavailable';
      return fail(code, status, `${path} answered ${status}: ${snippet(text)}`, { retry: true, waitMs: retryAfterMs(res.headers.get('retry-after')) });
    }
    if (status === 401 || status === 403) return fail('unauthorized', status, `the credentials were refused (${status}): ${snippet(text)}`);
    if (status === 404) return fail('not_found', status, `${path} was not found (404)`);
    if (status < 200 || status >= 300) return fail('rejected', status, `${path} answered ${status}: ${snippet(text)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return fail('bad_response', status, `${path} answered ${status} with a body that is not JSON: ${snippet(text)}`, { cause: err });
    }
    const throttle = req.throttled?.(body);
    if (throttle !== undefined) {
      return fail('rate_limited', status, `${path} is throttled: ${snippet(text)}`, { retry: true, waitMs: throttle ?? undefined });
    }
    return { body };
  }

  const raise = (f: Failure, attempts: number, note = '', retryAfter?: number) =>
    new MarketplaceError(channel, f.code, f.status, `${channel}: ${f.message}${note}`, { attempts, retryAfterMs: retryAfter, cause: f.cause });

  return {
    channel,
    async request<T>(req: JsonRequest): Promise<T> {
      const path = new URL(req.url).pathname;
      for (let n = 1; ; n++) {
        const outcome = await attempt(req, path);
        if ('body' in outcome) return outcome.body as T;
        if (!outcome.retry) throw raise(outcome, n);
        const wait = outcome.waitMs;
        if (wait !== undefined && wait > policy.maxDelayMs) {
          throw raise(outcome, n, ` (asked to wait ${wait} ms, more than the ${policy.maxDelayMs} ms allowed)`, wait);
        }
        if (n >= policy.maxAttempts) throw raise(outcome, n, ` (gave up after ${n} attempts)`);
        await sleep(wait ?? backoffMs(n, policy, random), req.signal).catch((err) => {
          throw req.signal?.aborted ? req.signal.reason : err;
        });
      }
    },
  };
}
