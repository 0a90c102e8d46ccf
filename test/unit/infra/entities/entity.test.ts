import { describe, expect, it } from 'vitest';
import { getEvery, key } from '#infra/entities/entity';

describe('entity keys', () => {
  it("reads a key's composite attributes off its template's placeholders, in order", () => {
    expect(key('pk', 'IDEM#${scope}#${accountId}#${key}')).toEqual({ field: 'pk', composite: ['scope', 'accountId', 'key'], template: 'IDEM#${scope}#${accountId}#${key}' });
    expect(key('sk', 'BATCH')).toEqual({ field: 'sk', composite: [], template: 'BATCH' });
  });

  it("keeps the template's case only when asked, as ElectroDB lower-cases keys by default", () => {
    expect(key('gsi1pk', 'ACCOUNT#${accountId}#PRODUCTS', { casing: 'none' })).toEqual({ field: 'gsi1pk', composite: ['accountId'], template: 'ACCOUNT#${accountId}#PRODUCTS', casing: 'none' });
    expect(key('gsi1pk', 'ACCOUNTS')).not.toHaveProperty('casing');
  });
});

describe('getEvery', () => {
  it('asks again for the keys a batch get hands back unprocessed, until none is left, and answers every item once', async () => {
    const asked: number[][] = [];
    const items = await getEvery([1, 2, 3, 4, 5], async (keys) => {
      asked.push(keys);
      // The first call leaves 4 and 5 unprocessed, the second leaves 5: as DynamoDB does under throttling.
      const done = keys.slice(0, Math.max(1, keys.length - 2));
      return { data: done.map((k) => `item ${k}`), unprocessed: keys.slice(done.length) };
    });
    expect(asked).toEqual([[1, 2, 3, 4, 5], [4, 5], [5]]);
    expect(items).toEqual(['item 1', 'item 2', 'item 3', 'item 4', 'item 5']);
  });
});
