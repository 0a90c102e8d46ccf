/**
 * The Despacho API client for TypeScript: openapi-fetch over the types openapi-typescript writes
 * from GET /api/openapi.json (schema.d.ts). Paths, parameters, bodies and every declared answer
 * are typed; nothing here is written by hand but this file.
 *
 *   const api = createDespachoClient({ baseUrl: 'https://api.example.com', token });
 *   const { data, error, response } = await api.GET('/api/v1/orders/{id}', { params: { path: { id: 7 } } });
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';
import { retryingFetch, type RetryOptions } from './retry';

export { retryingFetch, retryable, retryAfterMs, type RetryOptions } from './retry';
export { pages, items, PageError } from './pages';
export { verifyWebhook, standardWebhooksKey, WebhookVerificationError, type WebhookEvent, type VerifyOptions } from './webhooks';

export type { paths, components, webhooks } from './schema';

export type DespachoClient = Client<paths>;

export interface DespachoClientOptions {
  /** The service's origin (e.g. http://localhost:3000); the API's base (`…/api`) is taken too, as the paths start with /api. */
  baseUrl: string;
  /** A bearer token; leave out for the public routes. */
  token?: string;
  /** Another fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Retries of 429s and 5xx (retry.ts): on by default (4 attempts in all); `false` sends each request once. */
  retry?: RetryOptions | false;
}

export function createDespachoClient(opts: DespachoClientOptions): DespachoClient {
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, '').replace(/\/api$/, ''),
    headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : undefined,
    fetch: opts.retry === false ? opts.fetch : retryingFetch(opts.fetch ?? ((input, init) => fetch(input, init)), opts.retry),
  });
}

/**
 * A call by method and a path built at run time (`/v1/...`, without /api), for callers whose paths
 * come from their data (the CLI's demo, the benches): the same client, without the compile-time
 * check of the path. `init` is openapi-fetch's (body, headers, parseAs, bodySerializer).
 */
export function requestPath(api: DespachoClient, method: string, path: string, init: Record<string, unknown> = {}) {
  return api.request(method.toLowerCase() as never, `/api${path}` as never, init as never) as Promise<{ data?: any; error?: any; response: Response }>;
}
