import { describe, expect, it } from 'vitest';
import { awbKey, foldIdentifier, indexWords, packLimit, packsOfBatch, packsOfDocument, packsOfItems, planQuery, taxIdSearchKeys, words } from '#core/search/index-terms';

const scope = { accountId: 7, batchId: 'b1', manifestNumber: 'M-1' };
const it3 = (i: number, data: Record<string, string>) => ({ itemKey: `k${i}`, awb: `AWB-00${i}`, data });

describe('normalizing and tokenizing', () => {
  it('folds an identifier to upper-case letters and digits, so dashes, dots and spaces do not matter', () => {
    expect(foldIdentifier('20-12345678-6')).toBe('20123456786');
    expect(foldIdentifier('20.12345678.6')).toBe('20123456786');
    expect(foldIdentifier(' 880-1234 5675 ')).toBe('88012345675');
    expect(foldIdentifier('man-ñ/01')).toBe('MANN01');
  });

  it('cuts text into lower-case words without accents', () => {
    expect(words('María José PÉREZ-Núñez, 3 u.')).toEqual(['maria', 'jose', 'perez', 'nunez', '3', 'u']);
  });

  it('indexes the distinct words worth a key, without stop words or single letters, at most eight', () => {
    expect(indexWords('Casco de bicicleta para adulto, casco')).toEqual(['casco', 'bicicleta', 'adulto']);
    expect(indexWords('a b c d e f g h i j k l m n o p')).toEqual([]);
    expect(indexWords('one two three four five six seven eight nine ten')).toHaveLength(8);
  });

  it('packs an AWB under its value without the last two characters, a short one whole', () => {
    expect(awbKey('AWB0001234')).toBe('AWB00012');
    expect(awbKey('A12')).toBe('A12');
  });
});

describe('the packs of a segment', () => {
  it('packs AWBs 100 to an item and names under their words, one entry per distinct value; tax ids go on the items themselves', () => {
    const items = Array.from({ length: 250 }, (_, i) => ({ itemKey: `k${i}`, awb: `AWB${String(i).padStart(7, '0')}`, data: { consigneeIdNumber: '20123456786', consigneeName: 'Ana Gómez' } }));
    const packs = packsOfItems(items, scope, 'seg');
    const awbs = packs.filter((p) => p.kind === 'awb');
    expect(awbs.every((p) => p.entries.length <= packLimit.awb)).toBe(true);
    expect(awbs.reduce((n, p) => n + p.entries.length, 0)).toBe(250);
    expect(awbs.map((p) => p.key)).toEqual(['AWB00000', 'AWB00001', 'AWB00002']);
    expect(packs.filter((p) => p.kind === 'taxid')).toEqual([]);
    expect(taxIdSearchKeys(items[0], 'b1')).toEqual({ searchTaxHead: '201', searchTaxRef: '20123456786#b1#k0' });
    expect(taxIdSearchKeys({ itemKey: 'k', data: {} }, 'b1')).toBeUndefined();
    expect(packs.filter((p) => p.kind === 'consignee').map((p) => [p.key, p.entries.length])).toEqual([['ana', 1], ['gomez', 1]]);
  });

  it('splits a key with more distinct values than a pack holds into parts', () => {
    const items = Array.from({ length: 250 }, (_, i) => it3(i, { itemDescription: `Remera modelo ${i}` }));
    const remera = packsOfItems(items, scope, 's').filter((p) => p.kind === 'product' && p.key === 'remera');
    expect(remera.map((p) => [p.part, p.entries.length])).toEqual([[0, 100], [1, 100], [2, 50]]);
  });

  it('gives the same packs for the same segment (a retried write puts the same keys)', () => {
    const items = [it3(1, { itemDescription: 'Casco', consigneeName: 'Ana' }), it3(2, { itemName: 'Funda' })];
    expect(packsOfItems(items, scope, 's')).toEqual(packsOfItems(items, scope, 's'));
  });

  it('indexes a batch by its manifest number and its guía, once when they are the same', () => {
    expect(packsOfBatch({ ...scope, manifestNumber: '880-1', mawbNumber: '880-1' }).map((p) => p.key)).toEqual(['8801']);
    expect(packsOfBatch({ ...scope, mawbNumber: '880-1' }).map((p) => p.key)).toEqual(['M1', '8801']);
  });

  it("indexes a document by its file name's words without the extension, and its title's", () => {
    expect(packsOfDocument({ id: 9, accountId: 1, fileName: 'factura_proforma.PDF', title: 'Guía aérea', documentType: 'awb' }).map((p) => p.key)).toEqual(['factura', 'proforma', 'guia', 'aerea']);
  });
});

describe('planning a query', () => {
  it('reads identifiers by prefix and words by the longest word, the last one as a prefix', () => {
    const plans = planQuery('20-1234');
    expect(plans.map((p) => p.kind)).toEqual(['batch', 'awb', 'taxid', 'consignee', 'product', 'document']);
    expect(plans.find((p) => p.kind === 'taxid')!.reads).toEqual([{ kind: 'taxid', head: '201', prefix: '201234' }]);
    const words = planQuery('casco bici').find((p) => p.kind === 'product')!;
    expect(words.reads).toEqual([{ kind: 'product', head: 'ca', prefix: 'casco#' }]);
    expect(words.matches({ v: 'Casco de Bicicleta' })).toBe(true);
    expect(words.matches({ v: 'casco de moto' })).toBe(false);
    expect(planQuery('bicicleta ca').find((p) => p.kind === 'product')!.reads[0].prefix).toBe('bicicleta#');
  });

  it('finds an AWB of the same length or longer than the query under each key it can sit under', () => {
    const plan = planQuery('AWB00012').find((p) => p.kind === 'awb')!;
    expect(plan.reads.map((r) => r.prefix)).toEqual(['AWB00012', 'AWB000#', 'AWB0001#']);
    for (const awb of ['AWB00012', 'AWB000123', 'AWB0001234', 'AWB00012345']) {
      expect(plan.reads.some((r) => `${awbKey(awb)}#`.startsWith(r.prefix))).toBe(true);
      expect(plan.matches({ v: awb, n: awb })).toBe(true);
    }
  });

  it('asks no tax id of a query with letters, and nothing of a one-character query', () => {
    expect(planQuery('garcia').map((p) => p.kind)).not.toContain('taxid');
    expect(planQuery('x')).toEqual([]);
  });
});
