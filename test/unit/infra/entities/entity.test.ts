import { describe, expect, it } from 'vitest';
import { key } from '#infra/entities/entity';

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
