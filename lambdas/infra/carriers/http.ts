import { setTimeout as delay } from 'node:timers/promises';
import { BadGateway, GatewayTimeout, Unavailable, ValidationFailed, type ServiceError } from '#core/errors';
import { backoffMs, retryAfterMs } from '../marketplaces/http';

/**
 * The HTTP client every carrier adapter calls through (global fetch): each attempt has its own
 * timeout; 429 and 5xx are retried with the wait `Retry-After` asks or an exponential backoff with
 * jitter, never longer than `maxDelayMs`; the whole call stops at `deadlineMs` (the ship route has
 * 29 s). A timeout or a lost connection is retried only for requests that may be sent twice
 * (reads, voids, tokens): a label request that timed out may have been made, and is not repeated.
 * Every failure ends as one `CarrierError` carrying the carrier's own message.
 */
export interface CarrierRetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  /** The whole call, every attempt and wait included. */
  deadlineMs: number;
}

export const carrierRetryPolicy: CarrierRetryPolicy = { maxAttempts: 4, baseDelayMs: 300, maxDelayMs: 4_000, timeoutMs: 8_000, deadlineMs: 22_000 };

export type CarrierErrorCode =
  | 'unauthorized' // 401, 403: the account's credentials were refused
  | 'rejected' // another 4xx: the carrier refused the request (an address, a service, a weight)
  | 'not_found' // 404
  | 'rate_limited' // 429 after every attempt
  | 'unavailable' // 5xx after every attempt
  | 'timeout' // no answer in time
  | 'network' // no connection
  | 'bad_response'; // an answer the adapter cannot read

export class CarrierError extends Error {
  override readonly name = 'CarrierError';
  constructor(
    readonly carrier: string,
    readonly code: CarrierErrorCode,
    /** The carrier's HTTP status; null when none came. */
    readonly status: number | null,
    /** The carrier's own words (its error message), or what happened. */
    readonly carrierMessage: string,
    readonly attempts = 1,
  ) {
    super(`${carrier}: ${carrierMessage}`);
  }
}

export interface CarrierRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON, or as a form when `form` is set. */
  body?: unknown;
  form?: Record<string, string>;
  /** May be sent twice (a read, a void, a token): timeouts and lost connections are retried. */
  idempotent: boolean;
}

export interface CarrierHttp {
  request<T = unknown>(req: CarrierRequest): Promise<T>;
}

export interface CarrierHttpOptions extends Partial<CarrierRetryPolicy> {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const snippet = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...` : text);

/**
 * A carrier client: `messageOf` reads the carrier's error body (each carrier has its own shape)
 * into one line; undefined when it cannot.
 */
export function carrierHttp(carrier: string, messageOf: (body: unknown) => string | undefined, options: CarrierHttpOptions = {}): CarrierHttp {
  const given = Object.fromEntries(Object.entries(options).filter(([k, v]) => k in carrierRetryPolicy && v !== undefined));
  // CARRIER_TIMEOUT_MS (read at each call) shortens one attempt: the twin's timeout tests.
  const policyNow = (): CarrierRetryPolicy => {
    const timeout = Number(process.env.CARRIER_TIMEOUT_MS);
    return { ...carrierRetryPolicy, ...(Number.isInteger(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}), ...given };
  };
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const random = options.random ?? Math.random;

  const said = (text: string): string => {
    try {
      return messageOf(JSON.parse(text)) ?? snippet(text);
    } catch {
      return snippet(text);
    }
  };

  type Outcome = { body: unknown } | { error: CarrierError; retry: boolean; waitMs?: number };

  async function attempt(policy: CarrierRetryPolicy, req: CarrierRequest, n: number, deadline: number): Promise<Outcome> {
    const left = deadline - Date.now();
    const timeoutMs = Math.max(1, Math.min(policy.timeoutMs, left));
    let res: Response;
    let text: string;
    try {
      const body = req.form ? new URLSearchParams(req.form).toString() : req.body === undefined ? undefined : JSON.stringify(req.body);
      const contentType = req.form ? 'application/x-www-form-urlencoded' : 'application/json';
      res = await fetch(req.url, {
        method: req.method ?? 'GET',
        headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': contentType }), ...req.headers },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      const reason = timedOut ? `did not answer within ${timeoutMs} ms` : `could not be reached (${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message})`;
      return { error: new CarrierError(carrier, timedOut ? 'timeout' : 'network', null, `the ${carrier} API ${reason}`, n), retry: req.idempotent };
    }
    const status = res.status;
    if (status === 429 || status >= 500) {
      const code = status === 429 ? 'rate_limited' : 'unavailable';
      return { error: new CarrierError(carrier, code, status, said(text), n), retry: true, waitMs: retryAfterMs(res.headers.get('retry-after')) };
    }
    if (status === 401 || status === 403) return { error: new CarrierError(carrier, 'unauthorized', status, said(text), n), retry: false };
    if (status === 404) return { error: new CarrierError(carrier, 'not_found', status, said(text), n), retry: false };
    if (status < 200 || status >= 300) return { error: new CarrierError(carrier, 'rejected', status, said(text), n), retry: false };
    if (text === '') return { body: null };
    try {
      return { body: JSON.parse(text) };
    } catch {
      return { error: new CarrierError(carrier, 'bad_response', status, `answered ${status} with a body that is not JSON: ${snippet(text)}`, n), retry: false };
    }
  }

  return {
    async request<T>(req: CarrierRequest): Promise<T> {
      const policy = policyNow();
      const deadline = Date.now() + policy.deadlineMs;
      for (let n = 1; ; n++) {
        const outcome = await attempt(policy, req, n, deadline);
        if ('body' in outcome) return outcome.body as T;
        if (!outcome.retry || n >= policy.maxAttempts) throw outcome.error;
        const wait = Math.min(outcome.waitMs ?? backoffMs(n, policy, random), policy.maxDelayMs);
        if (Date.now() + wait >= deadline) throw outcome.error;
        await sleep(wait);
      }
    },
  };
}

/**
 * A carrier failure as the service answers it: the account's credentials refused -> 422 naming
 * `carrier` (fix them with PUT /v1/shipping/carriers/{carrier}); the request refused -> 422 naming
 * `carrier` with the carrier's message; still rate-limited -> 503 with Retry-After; the carrier
 * down or unreadable -> 502; no answer in time -> 504. The carrier's message is in every one.
 */
export function carrierFailure(err: CarrierError, field = 'carrier'): ServiceError {
  const who = err.carrier.toUpperCase() === 'DHL' ? 'DHL Express' : err.carrier === 'fedex' ? 'FedEx' : err.carrier.toUpperCase();
  switch (err.code) {
    case 'unauthorized':
      return new ValidationFailed(
        { [field]: [`${who} refused the account's ${err.carrier} credentials (${err.status}: ${err.carrierMessage}); update them with PUT /v1/shipping/carriers/${err.carrier}.`] },
        `${who} refused the credentials.`,
      );
    case 'rejected':
    case 'not_found':
      return new ValidationFailed({ [field]: [`${who} refused the request (${err.status}): ${err.carrierMessage}`] }, `${who} refused the request.`);
    case 'rate_limited':
      return new Unavailable(`${who} is rate-limiting requests (429 after ${err.attempts} attempts): ${err.carrierMessage}. Retry shortly.`, { carrier: err.carrier }, { 'Retry-After': '30' });
    case 'timeout':
      return new GatewayTimeout(`${who} did not answer in time: ${err.carrierMessage}.`, { carrier: err.carrier });
    default:
      return new BadGateway(`${who} failed (${err.status ?? err.code}, ${err.attempts} attempt${err.attempts === 1 ? '' : 's'}): ${err.carrierMessage}`, { carrier: err.carrier });
  }
}
