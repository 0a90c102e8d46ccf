import { describe, expect, it } from 'vitest';
import { fingerprintOf, keysToRemember, linkOf, memoryKeysOf } from '#services/review/fingerprint';
import { decisionCited } from '#services/pipeline/stages';

describe('the partner-code memory keys', () => {
  it('read a product link as the same article whatever its case, www, trailing slash, tracking parameters or fragment', () => {
    expect(linkOf('https://WWW.Shop.example.com/p/77/?utm_source=a&color=red&ref=x#top')).toBe('shop.example.com/p/77?color=red');
    expect(linkOf('https://shop.example.com/p/77?color=red')).toBe('shop.example.com/p/77?color=red');
    expect(linkOf('not a link')).toBeUndefined();
    expect(linkOf('   ')).toBeUndefined();
  });

  it('key a product by its link, then its description as words, then the fingerprint written before issue 39', () => {
    const keys = memoryKeysOf({ itemDescription: '  Lámpara  LED ', itemName: 'x', productLink: 'https://shop.example.com/p/1' });
    expect(keys.map((k) => k.match)).toEqual(['link', 'description', 'product']);
    expect(memoryKeysOf({ itemDescription: 'lampara led', hsCode: '9405.11', Category: 'Home' })[0]).toEqual(keys[1]);
    expect(keys[2].key).toBe(fingerprintOf({ description: '  Lámpara  LED ', name: 'x' }));
  });

  it('key a product without a description by its name, and one with neither only by the old fingerprint', () => {
    expect(memoryKeysOf({ itemName: 'Lampara LED' })[0]).toEqual(memoryKeysOf({ itemDescription: 'lampara led' })[0]);
    expect(memoryKeysOf({}).map((k) => k.match)).toEqual(['product']);
    expect(keysToRemember({}).map((k) => k.match)).toEqual(['product']);
    expect(keysToRemember({ itemDescription: 'Lampara LED', productLink: 'https://a.example/p' }).map((k) => k.match)).toEqual(['link', 'description']);
  });

  it('cite the decision a remembered answer rests on', () => {
    expect(decisionCited('4202.92.00', 'link', { decidedAt: '2026-12-01T10:00:00Z', decidedBy: 'ana@broker.example', batchId: 'bat_1', awb: 'AWB1', revision: 2 })).toBe(
      'A broker decided 4202.92.00 for the same product link on 2026-12-01 (ana@broker.example): batch bat_1, AWB AWB1, revision 2 (partner-code memory).',
    );
    expect(decisionCited('4202.92.00', 'product', { decidedAt: '2026-12-01T10:00:00Z' })).toBe('A broker decided 4202.92.00 for the same product on 2026-12-01 (partner-code memory).');
  });
});
