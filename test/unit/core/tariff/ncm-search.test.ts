import { describe, expect, it } from 'vitest';
import { builtinTariff } from '#core/tariff/builtin';
import { foldWords, indexNomenclature, ncmSearchLimit, readNcmQuery, searchNcm } from '#core/tariff/ncm-search';
import type { TariffRow } from '#core/tariff/table';

const index = indexNomenclature(builtinTariff);
const codes = (q: string, limit?: number) => searchNcm(index, q, limit).hits.map((h) => h.row.ncm);

const small: TariffRow[] = [
  { ncm: '9102.11.10', description: 'Relojes de pulsera eléctricos, con indicador mecánico', description_en: 'Wrist-watches, electrically operated', duty_rate: 20 },
  { ncm: '8517.62.77', description: 'Los demás aparatos emisores con receptor incorporado (relojes inteligentes)', description_en: 'Smart watches', duty_rate: 16 },
  { ncm: '6506.10.00', description: 'Cascos de seguridad', description_en: 'Safety headgear', duty_rate: 20, keywords: ['casco bicicleta', 'helmet'] },
  { ncm: '8517.13.00', description: 'Teléfonos inteligentes (smartphones)', duty_rate: 16 },
  { ncm: '8517.18.00', description: 'Los demás teléfonos', duty_rate: 16 },
];

describe('searching the nomenclature by words', () => {
  it('finds a row by a Spanish word of its description', () => {
    expect(codes('casco')).toContain('6506.10.00');
    expect(codes('bicicletas')).toContain('8712.00.10');
  });

  it('finds a row by an English word of its description or keywords', () => {
    expect(codes('helmet')).toEqual(['6506.10.00']);
    expect(codes('smartphone')).toContain('8517.13.00');
  });

  it('folds accents and case on both sides: TELÉFONO, telefono and teléfonos meet the same rows', () => {
    const plain = codes('telefono');
    expect(plain).toContain('8517.13.00');
    expect(codes('TELÉFONO')).toEqual(plain);
    expect(codes('teléfonos')).toEqual(plain);
  });

  it('folds plurals: relojes and reloj find the same rows, and a word typed halfway finds its rows', () => {
    const s = indexNomenclature(small);
    const of = (q: string) => searchNcm(s, q).hits.map((h) => h.row.ncm);
    expect(of('relojes')).toEqual(of('reloj'));
    expect(of('relo')).toEqual(expect.arrayContaining(['9102.11.10', '8517.62.77']));
  });

  it('requires every word to match as the start of a word of the row', () => {
    const s = indexNomenclature(small);
    expect(searchNcm(s, 'relojes intelig').hits.map((h) => h.row.ncm)).toEqual(['8517.62.77']);
    expect(searchNcm(s, 'relojes zapato').hits).toEqual([]);
  });

  it('ranks a row whose description opens with the word above one that names it later', () => {
    const s = indexNomenclature(small);
    expect(searchNcm(s, 'reloj').hits.map((h) => h.row.ncm)).toEqual(['9102.11.10', '8517.62.77']);
  });

  it('drops a stop word the query completed: bolsos de mano', () => {
    const q = readNcmQuery('bolsos de mano');
    expect(q).toEqual({ kind: 'words', words: ['bolsos', 'mano'] });
    expect(codes('bolsos de mano')).toContain('4202.21.00');
  });

  it('finds nothing for nonsense, and nothing for a query that folds to no word', () => {
    expect(searchNcm(index, 'xqzzvwk').hits).toEqual([]);
    expect(searchNcm(index, 'xqzzvwk').total).toBe(0);
    expect(searchNcm(index, '¡¿?!').hits).toEqual([]);
  });
});

describe('searching the nomenclature by code prefix', () => {
  it('reads digits with or without dots as a code prefix', () => {
    expect(readNcmQuery('8517.13')).toEqual({ kind: 'code', digits: '851713' });
    expect(readNcmQuery(' 8517 ')).toEqual({ kind: 'code', digits: '8517' });
  });

  it('answers the rows under a dotted prefix, in NCM order', () => {
    expect(codes('8517.13')).toEqual(['8517.13.00']);
    expect(codes('8517.13.00')).toEqual(['8517.13.00']);
    expect(codes('85171300')).toEqual(['8517.13.00']);
    const heading = codes('8517', 50);
    expect(heading.length).toBeGreaterThan(1);
    expect(heading.every((c) => c.startsWith('8517.'))).toBe(true);
    expect([...heading].sort()).toEqual(heading);
  });

  it('finds nothing for a prefix no row has or more than 8 digits', () => {
    expect(codes('0000')).toEqual([]);
    expect(codes('851713001')).toEqual([]);
  });
});

describe('searching the nomenclature by words and a code together', () => {
  it('narrows the words to the rows under a code written among them', () => {
    expect(readNcmQuery('telefonos 8517.13')).toEqual({ kind: 'words', words: ['telefonos'], digits: '851713' });
    expect(codes('8517 telefonos')).toEqual(['8517.13.00']);
    expect(codes('telefonos 3926')).toEqual(['3926.90.90']);
    expect(codes('telefonos 0101')).toEqual([]);
  });
});

describe('the limit of a search', () => {
  it('answers 20 rows by default, never more than 50, at least 1, and counts every match in total', () => {
    const all = searchNcm(index, '8', 1000);
    expect(all.hits).toHaveLength(ncmSearchLimit.max);
    expect(all.total).toBeGreaterThan(ncmSearchLimit.max);
    expect(searchNcm(index, '8').hits).toHaveLength(ncmSearchLimit.default);
    expect(searchNcm(index, '8', 0).hits).toHaveLength(ncmSearchLimit.default);
    expect(searchNcm(index, '8', 3).hits).toHaveLength(3);
  });
});

describe('folding words', () => {
  it('lower-cases, removes accents and splits on punctuation', () => {
    expect(foldWords('Cámaras de CAUCHO, p/bicicletas')).toEqual(['camaras', 'de', 'caucho', 'p', 'bicicletas']);
  });
});
