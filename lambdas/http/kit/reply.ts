/** What a handler returns; the kit serializes it. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A non-JSON answer (a file, a page): sent as is with its content type. */
  raw?: { contentType: string; body: string | Buffer };
}

/** `{ success: true, data, message? }` plus any extra top-level fields the spec names. */
export function ok(data: unknown, opts: { status?: number; message?: string; extra?: Record<string, unknown> } = {}): Reply {
  const body: Record<string, unknown> = { success: true };
  if (opts.message !== undefined) body.message = opts.message;
  if (data !== undefined) body.data = data;
  Object.assign(body, opts.extra);
  return { status: opts.status ?? 200, body };
}

export function created(data: unknown, message?: string, extra?: Record<string, unknown>): Reply {
  return ok(data, { status: 201, message, extra });
}
