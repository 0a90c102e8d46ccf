import { rateWindows } from './rate-windows/rate-window';

/** Counts one hit in a window with a single atomic ADD and returns the count including it. */
export async function hit(key: string, expiresAt: number): Promise<number> {
  const res = await rateWindows()
    .update({ key })
    .add({ hits: 1 })
    .set({ expiresAt })
    .go({ response: 'updated_new' });
  // The ADD always leaves a count.
  if (res.data.hits === undefined) throw new Error(`rate window ${key}: the update answered no count`);
  return res.data.hits;
}
