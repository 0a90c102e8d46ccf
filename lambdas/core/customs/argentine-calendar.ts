/**
 * Dates as the customs rules read them: a calendar date written YYYY-MM-DD, and the date in
 * Argentina (UTC-3 all year; no daylight saving since 2009) of an instant. The regime, tax and
 * exchange-rate rules all look their tables up with these.
 */

export const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD ('2025-02-30' is not). */
export function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) === s;
}

/** The calendar date in Argentina of an instant. `2026-01-01T02:00:00Z` -> `2025-12-31`. */
export function argentineDay(at: Date | string): string {
  const t = typeof at === 'string' ? Date.parse(at) : at.getTime();
  if (!Number.isFinite(t)) throw new RangeError(`not a date: ${String(at)}`);
  return new Date(t - 3 * 3600_000).toISOString().slice(0, 10);
}
