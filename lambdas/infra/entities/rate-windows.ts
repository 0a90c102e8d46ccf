import { isConditionalFailure } from './entity';
import { rateWindows } from './rate-windows/rate-window';

/**
 * Counts one hit in a window with a single atomic ADD and returns the count including it; null
 * when the window was closed by a revocation (`closeWindows`): the same one write, conditional.
 */
export async function hit(key: string, expiresAt: number): Promise<number | null> {
  try {
    const res = await rateWindows()
      .update({ key })
      .add({ hits: 1 })
      .set({ expiresAt })
      .where(({ revokedAt }, { notExists }) => notExists(revokedAt))
      .go({ response: 'updated_new' });
    // The ADD always leaves a count.
    if (res.data.hits === undefined) throw new Error(`rate window ${key}: the update answered no count`);
    return res.data.hits;
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

/** Closes these windows (BatchWriteItem, 25 a call): every later hit in them is refused. */
export async function closeWindows(keys: readonly string[], revokedAt: string, expiresAt: number): Promise<void> {
  const res = await rateWindows()
    .put(keys.map((key) => ({ key, hits: 0, revokedAt, expiresAt })))
    .go();
  if (res.unprocessed.length) throw new Error(`rate windows: ${res.unprocessed.length} not closed`);
}
