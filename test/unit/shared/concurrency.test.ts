import { describe, expect, it } from 'vitest';
import { mapConcurrent } from '#shared/concurrency';

describe('mapConcurrent', () => {
  it('runs at most the given number at a time, keeping the order of results', async () => {
    let running = 0;
    let most = 0;
    const out = await mapConcurrent([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, n * 3));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });
});
