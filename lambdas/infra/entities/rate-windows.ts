import { defineEntity, service, key } from './entity';

const windows = defineEntity({
  model: { entity: 'rateWindow', version: '1', service },
  attributes: {
    key: { type: 'string', required: true },
    hits: { type: 'number', default: 0 },
    /** Epoch seconds; DynamoDB's TTL removes spent windows. */
    expiresAt: { type: 'number', field: 'ttl' },
  },
  indexes: {
    byKey: { pk: key('pk', 'RATE#${key}'), sk: key('sk', 'RATE') },
  },
} as const);

/** Counts one hit in a window with a single atomic ADD and returns the count including it. */
export async function hit(key: string, expiresAt: number): Promise<number> {
  const res = await windows()
    .update({ key })
    .add({ hits: 1 })
    .set({ expiresAt })
    .go({ response: 'updated_new' });
  return res.data.hits as number;
}
