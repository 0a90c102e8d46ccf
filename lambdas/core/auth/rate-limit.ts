/** The fixed one-minute window a request falls in, and the seconds until it ends. */
export function minuteWindow(at: Date): { window: number; resetInSeconds: number; expiresAt: number } {
  const seconds = Math.floor(at.getTime() / 1000);
  const window = Math.floor(seconds / 60);
  return { window, resetInSeconds: (window + 1) * 60 - seconds, expiresAt: (window + 2) * 60 };
}

export function rateHeaders(limit: number, hits: number): Record<string, string> {
  return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(Math.max(0, limit - hits)) };
}
