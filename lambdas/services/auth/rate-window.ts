import { now } from '#infra/clock';
import { hit } from '#infra/entities/rate-windows';
import { minuteWindow } from '#core/auth/rate-limit';

/** Counts a request in `key`'s current minute window (one atomic ADD) and answers the count with it. */
export async function countRequest(key: string): Promise<{ hits: number; resetInSeconds: number; resetAt: number }> {
  const { window, resetInSeconds, resetAt, expiresAt } = minuteWindow(now());
  const hits = await hit(`${key}#${window}`, expiresAt);
  return { hits, resetInSeconds, resetAt };
}
