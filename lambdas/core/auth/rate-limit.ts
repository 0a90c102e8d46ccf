/**
 * The fixed one-minute window a request falls in, the seconds until it ends, and its end
 * (`resetAt`, Unix seconds: when the count starts again).
 */
export function minuteWindow(at: Date): { window: number; resetInSeconds: number; resetAt: number; expiresAt: number } {
  const seconds = Math.floor(at.getTime() / 1000);
  const window = Math.floor(seconds / 60);
  return { window, resetInSeconds: (window + 1) * 60 - seconds, resetAt: (window + 1) * 60, expiresAt: (window + 2) * 60 };
}

/** The headers every rate-limited route answers with: the limit, what is left of it, and when it resets (Unix seconds). */
export function rateHeaders(limit: number, hits: number, resetAt: number): Record<string, string> {
  return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(Math.max(0, limit - hits)), 'X-RateLimit-Reset': String(resetAt) };
}
