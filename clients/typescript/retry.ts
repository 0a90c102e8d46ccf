/**
 * Retries of the typed client: a fetch that sends a request again when the service answers 429 or
 * a 5xx, or the connection fails, waiting as the answer's `Retry-After` says (seconds or an HTTP
 * date) or else an exponential backoff with jitter, a bounded number of times.
 *
 * What is retried: a 429 always (the rate limiter refuses a request before any work is done); a
 * 5xx or a failed connection only when sending twice cannot do a thing twice: GET, HEAD, OPTIONS,
 * PUT and DELETE, or any request carrying an `Idempotency-Key` (the service replays the first
 * answer of a repeated key). A POST without one is answered as it came.
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retrying off). */
  attempts?: number;
  /** The first backoff when no Retry-After is given, doubled at each attempt (default 500 ms). */
  baseDelayMs?: number;
  /** The longest wait before one attempt (default 30 s): a Retry-After beyond it ends the retries, and its answer is returned. */
  maxDelayMs?: number;
  /** Told of each retry before its wait (logs, metrics). */
  onRetry?: (info: { attempt: number; delayMs: number; status?: number; error?: unknown; request: Request }) => void;
}

const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Whether a failure of this request may be retried: 429 always; a 5xx or a lost connection when it is idempotent. */
export function retryable(request: Request, status: number | undefined): boolean {
  if (status === 429) return true;
  if (status !== undefined && status < 500) return false;
  return idempotentMethods.has(request.method.toUpperCase()) || request.headers.has('Idempotency-Key');
}

/** The wait a `Retry-After` value asks for, in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `fetch` with the retries above. */
export function retryingFetch(inner: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const attempts = Math.max(1, options.attempts ?? 4);
  const base = options.baseDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let error: unknown;
      try {
        response = await inner(request.clone());
      } catch (e) {
        error = e;
      }
      const last = attempt >= attempts;
      if (response && (response.ok || last || !retryable(request, response.status))) return response;
      if (!response && (last || !retryable(request, undefined))) throw error;
      const asked = response ? retryAfterMs(response.headers.get('Retry-After')) : undefined;
      // Full jitter (a random wait up to the doubled base) keeps many clients from retrying together.
      const delayMs = asked ?? Math.round(Math.random() * Math.min(max, base * 2 ** (attempt - 1)));
      if (delayMs > max) {
        if (response) return response;
        throw error;
      }
      options.onRetry?.({ attempt, delayMs, status: response?.status, error, request });
      // The abandoned answer's body is read to its end so its connection is freed.
      await response?.arrayBuffer().catch(() => undefined);
      await sleep(delayMs);
    }
  };
}
