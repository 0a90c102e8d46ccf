/**
 * When the scheduled marketplace sync runs: every `everyMinutes` minutes on the clock (UTC), e.g.
 * at :00 for 60, at :00/:15/:30/:45 for 15. The stack's EventBridge Scheduler schedule and the
 * twin's timer both read this, and `next_scheduled_sync` is computed from it.
 */
export const syncScheduleOptions = [5, 10, 15, 20, 30, 60] as const;
export const defaultSyncEveryMinutes = 60;

export function syncEveryMinutes(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.ORDER_SYNC_EVERY_MINUTES ?? defaultSyncEveryMinutes);
  return (syncScheduleOptions as readonly number[]).includes(n) ? n : defaultSyncEveryMinutes;
}

/** EventBridge Scheduler's cron for the interval. */
export function syncCron(everyMinutes: number): string {
  return everyMinutes === 60 ? 'cron(0 * * * ? *)' : `cron(0/${everyMinutes} * * * ? *)`;
}

/** The first run strictly after `at`. */
export function nextSyncAfter(at: Date, everyMinutes: number): Date {
  const step = everyMinutes * 60_000;
  return new Date(Math.floor(at.getTime() / step) * step + step);
}
