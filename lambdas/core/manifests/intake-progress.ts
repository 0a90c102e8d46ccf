/**
 * A whole submission's intake as its status shows it (issue 42): the items received, how many the
 * worker has written, and an estimate of the seconds left, so a large manifest is not a bare
 * "queued, 0" for a minute.
 */
export interface IntakeProgress {
  items_received: number;
  items_written: number;
  /** Seconds until every item is written: from the rate so far, or before the first slice from `typicalItemsPerSecond`; 0 once written. */
  estimated_seconds_left: number;
}

/**
 * Items the worker writes between two progress records: one small update per slice (8 for 4,000
 * items), so the counts move every few seconds without a write per item.
 */
export const progressEvery = 500;

/**
 * The rate assumed before any slice is written: what the twin writes on a 2-core machine (4,000
 * items in about 60 s, decisions and search index included), so the first estimate errs long;
 * a stage writes faster, and the estimate follows the measured rate from the first slice on.
 */
export const typicalItemsPerSecond = 65;

export function intakeProgress(s: { items: number; status: 'queued' | 'written' | 'failed'; written?: number; writingFrom?: string }, now: Date): IntakeProgress {
  const received = s.items;
  if (s.status === 'written') return { items_received: received, items_written: received, estimated_seconds_left: 0 };
  const written = Math.min(s.written ?? 0, received);
  const elapsed = s.writingFrom ? (now.getTime() - Date.parse(s.writingFrom)) / 1000 : 0;
  const rate = written > 0 && elapsed > 0 ? written / elapsed : typicalItemsPerSecond;
  return { items_received: received, items_written: written, estimated_seconds_left: Math.ceil((received - written) / rate) };
}
