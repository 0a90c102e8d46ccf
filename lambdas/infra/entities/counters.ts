import { counters } from './counters/counter';

/** The next integer id of a sequence: one atomic ADD, so concurrent callers never share an id. */
export async function nextId(sequence: string): Promise<number> {
  const res = await counters().update({ name: sequence }).add({ value: 1 }).go({ response: 'updated_new' });
  return valueOf(res.data, sequence);
}

/** `count` consecutive ids in one atomic ADD; returns the first. */
export async function nextIds(sequence: string, count: number): Promise<number> {
  const res = await counters().update({ name: sequence }).add({ value: count }).go({ response: 'updated_new' });
  return valueOf(res.data, sequence) - count + 1;
}

/** The counter's value after an ADD (which always leaves one). */
function valueOf(updated: { value?: number }, sequence: string): number {
  if (updated.value === undefined) throw new Error(`counter ${sequence}: the update answered no value`);
  return updated.value;
}
