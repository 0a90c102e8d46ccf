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

export type { paths, components, webhooks } from './schema';

export type DespachoClient = Client<paths>;

export interface DespachoClientOptions {
  /** The service's origin, without /api (e.g. http://localhost:3000). */
  baseUrl: string;
  /** A bearer token; leave out for the public routes. */
  token?: string;
  /** Another fetch (tests, proxies). */
  fetch?: typeof fetch;
}

export function createDespachoClient(opts: DespachoClientOptions): DespachoClient {
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : undefined,
    fetch: opts.fetch,
  });
}
