import type { Principal } from '#core/auth/principal';

/**
 * What the authorizer hands a route handler through `requestContext.authorizer.lambda`.
 * Values are JSON strings because API Gateway passes context values through as flat scalars.
 */
export interface AuthContext {
  principal?: string;
  /** Set when the request must not reach the handler: `{ status, message, headers }`. */
  denial?: string;
}

export interface Denial {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** Extra top-level fields of the error body (a 429's `retry_after`). */
  extra?: Record<string, unknown>;
}

export function encodeContext(c: { principal?: Principal; denial?: Denial }): AuthContext {
  const out: AuthContext = {};
  if (c.principal) out.principal = JSON.stringify(c.principal);
  if (c.denial) out.denial = JSON.stringify(c.denial);
  return out;
}

export function decodeContext(raw: AuthContext | undefined): {
  principal?: Principal;
  denial?: Denial;
} {
  return {
    principal: raw?.principal ? JSON.parse(raw.principal) : undefined,
    denial: raw?.denial ? JSON.parse(raw.denial) : undefined,
  };
}
