import { afterAll, beforeAll } from 'vitest';
import { manualClock, useClock, useSystemClock } from '#infra/clock';

export type ManualClock = ReturnType<typeof manualClock>;

/** A manual clock at `at` for the tests of this file: the service reads it from the first test on, the system clock again after the last. */
export function useManualClock(at: string): ManualClock {
  const clock = manualClock(new Date(at));
  beforeAll(() => useClock(clock));
  afterAll(() => useSystemClock());
  return clock;
}
