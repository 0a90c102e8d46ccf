/**
 * Merges sources that are each in ascending key order into one sequence in key order. Where
 * several sources hold the same key, the entry of the last of them is kept: a later run's result
 * replaces an earlier one's. Each source is read one entry ahead, so memory holds one entry per
 * source, whatever their length.
 */
export async function* mergeByKey<T>(sources: readonly AsyncIterable<T>[], keyOf: (entry: T) => string): AsyncGenerator<T> {
  const readers = sources.map((s) => s[Symbol.asyncIterator]());
  const heads = await Promise.all(readers.map((r) => r.next()));
  let previous: string | undefined;
  for (;;) {
    let least: string | undefined;
    for (const head of heads) if (!head.done && (least === undefined || keyOf(head.value) < least)) least = keyOf(head.value);
    if (least === undefined) return;
    // A source out of order would otherwise lose or repeat entries without a sign.
    if (previous !== undefined && least <= previous) throw new Error(`merge: a source is not in key order at ${least}`);
    let kept: T | undefined;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head.done || keyOf(head.value) !== least) continue;
      kept = head.value;
      heads[i] = await readers[i].next();
    }
    previous = least;
    yield kept!;
  }
}
