/**
 * The one source of time. Production reads the system clock; the twin and the tests install
 * another (e.g. to walk a webhook through its 24 h retry schedule in milliseconds).
 */
export interface Clock {
  now(): Date;
}

const systemClock: Clock = { now: () => new Date() };
let current: Clock = systemClock;

export function now(): Date {
  return current.now();
}

export function nowIso(): string {
  return now().toISOString();
}

export function useClock(clock: Clock): void {
  current = clock;
}

export function useSystemClock(): void {
  current = systemClock;
}

/** A clock that stands still until moved: `advance(ms)`. */
export function manualClock(start = new Date()): Clock & { advance(ms: number): void; set(d: Date): void } {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
    },
    set(d) {
      t = d.getTime();
    },
  };
}
