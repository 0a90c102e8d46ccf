import { createDespachoClient, type DespachoClient } from '../clients/typescript';

/**
 * The benches call the service through the typed client (clients/typescript), as a partner would:
 * `api(token)` is a client acting with that token on the service at `apiUrl` (`…/api`).
 */
export function clients(apiUrl: string): (token: string) => DespachoClient {
  const byToken = new Map<string, DespachoClient>();
  return (token) => {
    let api = byToken.get(token);
    if (!api) byToken.set(token, (api = createDespachoClient({ baseUrl: apiUrl, token, retry: false })));
    return api;
  };
}

/** The body of a call that must succeed; else an error naming the call, its status and its answer. */
export async function must<T>(what: string, call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(error ?? data).slice(0, 300)}`);
  return data;
}
