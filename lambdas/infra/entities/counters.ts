import { defineEntity, service, key } from './entity';

const counters = defineEntity({
  model: { entity: 'counter', version: '1', service },
  attributes: {
    name: { type: 'string', required: true },
    value: { type: 'number', default: 0 },
  },
  indexes: {
    byName: { pk: key('pk', 'COUNTER#${name}'), sk: key('sk', 'COUNTER') },
  },
} as const);

/** The next integer id of a sequence: one atomic ADD, so concurrent callers never share an id. */
export async function nextId(sequence: string): Promise<number> {
  const res = await counters().update({ name: sequence }).add({ value: 1 }).go({ response: 'updated_new' });
  return res.data.value as number;
}

/** `count` consecutive ids in one atomic ADD; returns the first. */
export async function nextIds(sequence: string, count: number): Promise<number> {
  const res = await counters().update({ name: sequence }).add({ value: count }).go({ response: 'updated_new' });
  return (res.data.value as number) - count + 1;
}
