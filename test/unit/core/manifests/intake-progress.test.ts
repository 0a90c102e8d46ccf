import { describe, expect, it } from 'vitest';
import { intakeProgress, typicalItemsPerSecond } from '#core/manifests/intake-progress';

const now = new Date('2026-12-07T04:00:30Z');

describe('the intake progress of a submission', () => {
  it('estimates from the typical rate before any item is written', () => {
    expect(intakeProgress({ items: 4000, status: 'queued' }, now)).toEqual({ items_received: 4000, items_written: 0, estimated_seconds_left: Math.ceil(4000 / typicalItemsPerSecond) });
  });

  it('estimates from the rate so far once a slice is written', () => {
    // 1,000 items in 10 s: 100 a second, 3,000 left.
    expect(intakeProgress({ items: 4000, status: 'queued', written: 1000, writingFrom: '2026-12-07T04:00:20Z' }, now)).toEqual({ items_received: 4000, items_written: 1000, estimated_seconds_left: 30 });
  });

  it('says every item written and nothing left once written, whatever the last count', () => {
    expect(intakeProgress({ items: 4000, status: 'written', written: 3500, writingFrom: '2026-12-07T04:00:00Z' }, now)).toEqual({ items_received: 4000, items_written: 4000, estimated_seconds_left: 0 });
  });
});
