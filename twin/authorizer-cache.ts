import type { IncomingHttpHeaders } from 'node:http';
import { Lru } from '#shared/lru';

/** The authorizer's verdict as API Gateway keeps it: allowed or not, and the context it passes on. */
export interface Verdict {
  isAuthorized: boolean;
  context?: Record<string, unknown>;
}

/**
 * API Gateway's side of a REQUEST authorizer, played by the twin and the cloud lane as AWS does it:
 * a request without every header of the identity source is answered 401 with API Gateway's own
 * body (no function runs); otherwise the verdict is kept per identity (the sources' values
 * together) for the TTL and reused for every route behind that authorizer. `now` is the clock the
 * TTL runs on (the twin's injectable clock, so tests move through it instead of waiting).
 */
export class AuthorizerCache {
  private readonly kept = new Lru<string, { verdict: Verdict; until: number }>(10_000);
  /** Authorizer invocations so far (the cloud lane's benchmark reads it). */
  invocations = 0;

  constructor(
    /** Lower-cased header names (`$request.header.Authorization` -> `authorization`). */
    private readonly headers: readonly string[],
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {}

  /** The identity of a request: its sources' values, or undefined when one is missing or empty. */
  identity(headers: IncomingHttpHeaders): string | undefined {
    const values: string[] = [];
    for (const name of this.headers) {
      const value = headers[name];
      const one = Array.isArray(value) ? value.join(',') : value;
      if (!one) return undefined;
      values.push(one);
    }
    return JSON.stringify(values);
  }

  /** The kept verdict for `identity`, or a new one from `invoke` (kept when the TTL is above 0). */
  async verdict(identity: string, invoke: () => Promise<Verdict>): Promise<Verdict> {
    const at = this.now();
    const hit = this.kept.get(identity);
    if (hit && hit.until > at) return hit.verdict;
    this.invocations++;
    const verdict = await invoke();
    if (this.ttlSeconds > 0) this.kept.set(identity, { verdict, until: at + this.ttlSeconds * 1000 });
    return verdict;
  }
}

/** API Gateway's own answer to a request without its identity source. */
export const unauthorizedBody = '{"message":"Unauthorized"}';

/**
 * The twin's answer to a request without a token: API Gateway's body (so a client written against
 * AWS reads the same `message`) plus a `hint` saying what is missing, which AWS cannot add (an
 * HTTP API has no gateway responses to customize; docs/partners/errors-and-limits.md says what to
 * check there). The cloud lane plays AWS and answers the bare body.
 */
export const twinUnauthorizedBody = JSON.stringify({
  message: 'Unauthorized',
  hint: 'No Authorization header, or an empty one: send `Authorization: Bearer <token>`. A deployed stage answers this case with {"message":"Unauthorized"} alone.',
});
export const forbiddenBody = '{"message":"Forbidden"}';

/** `$request.header.Authorization` -> `authorization`; other kinds of source are not played. */
export function identityHeader(source: string): string {
  const m = /^\$request\.header\.([A-Za-z0-9-]+)$/.exec(source.trim());
  if (!m) throw new Error(`identity source ${JSON.stringify(source)}: the twin plays request headers only`);
  return m[1].toLowerCase();
}
