import { describe, expect, it } from 'vitest';
import { matchProhibited, normalizeText, prohibitedGoods, type ProhibitedEntry } from '#core/customs/prohibited';

const match = (description: string) => matchProhibited({ description });

describe('the prohibited-goods list', () => {
  it('is data: every entry has an id, a label, Spanish and English keywords, categories and tariff prefixes', () => {
    expect(prohibitedGoods.length).toBeGreaterThanOrEqual(6);
    for (const e of prohibitedGoods) {
      expect(e.id).toMatch(/^[a-z_]+$/);
      expect(e.label.length).toBeGreaterThan(5);
      expect(e.keywords.length).toBeGreaterThan(3);
      expect(e.categories.length).toBeGreaterThan(0);
      for (const p of e.tariff_prefixes) expect(p).toMatch(/^\d{4,6}$/);
    }
    expect(new Set(prohibitedGoods.map((e) => e.id)).size).toBe(prohibitedGoods.length);
  });

  it('matches a weapon in the description and says on what', () => {
    expect(match('9mm Pistol with holster')).toEqual({ id: 'weapons', label: prohibitedGoods[0].label, matchedOn: 'description', term: 'pistol' });
  });

  it('matches Spanish keywords whatever their accents and case', () => {
    expect(match('PÓLVORA negra para recarga')?.id).toBe('ammunition_explosives');
    expect(match('Revólver calibre 38')?.id).toBe('weapons');
    expect(match('Cocaína')?.id).toBe('narcotics');
  });

  it('matches a plural of a keyword', () => {
    expect(match('Municiones calibre 22')).toMatchObject({ id: 'ammunition_explosives', term: 'municion' });
    expect(match('two toy guns')).toMatchObject({ id: 'weapons', term: 'gun' });
  });

  it('does not match a word that merely contains a keyword ("gunmetal grey")', () => {
    expect(match('Phone case, gunmetal grey')).toBeNull();
    expect(match('Alarma para bicicleta')).toBeNull();
    expect(match('Ammonia-free hair dye')).toBeNull();
    expect(match('Pistolero cotton t-shirt')).toBeNull();
  });

  it('does not match allowed goods that contain a keyword (glue gun, pistola de calor, gun metal)', () => {
    expect(match('Hot glue gun 20W')).toBeNull();
    expect(match('Pistola de calor 2000W')).toBeNull();
    expect(match('Pistola masajeadora muscular')).toBeNull();
    expect(match('Watch strap, gun metal finish')).toBeNull();
  });

  it('matches lithium batteries shipped alone but not a device with its battery', () => {
    expect(match('Power bank 20000mAh')?.id).toBe('lithium_batteries_alone');
    expect(match('Batería de litio 18650')?.id).toBe('lithium_batteries_alone');
    expect(match('Smartphone with lithium battery')).toBeNull();
    expect(match('Parlante bluetooth con batería de litio')).toBeNull();
  });

  it('matches on the category', () => {
    expect(matchProhibited({ description: 'Accessory', category: 'Firearms & parts' })).toMatchObject({ id: 'weapons', matchedOn: 'category', term: 'firearms' });
  });

  it('matches on the HS or NCM code prefix, with or without dots', () => {
    expect(matchProhibited({ description: 'Sporting goods', hsCode: '9302.00.00' })).toMatchObject({ id: 'weapons', matchedOn: 'tariff_code', term: '9302' });
    expect(matchProhibited({ ncm: '8507.60.00' })).toMatchObject({ id: 'lithium_batteries_alone', matchedOn: 'tariff_code', term: '850760' });
  });

  it('prefers the tariff code to the description when both match', () => {
    expect(matchProhibited({ description: 'Fireworks', hsCode: '930200' })).toMatchObject({ id: 'weapons', matchedOn: 'tariff_code' });
  });

  it('lets nothing ordinary through as prohibited', () => {
    for (const d of ['Cotton t-shirt', 'Wireless earbuds', 'Zapatillas running', 'Plastic toy car', 'Libro de cocina', 'Phone case']) {
      expect(match(d), d).toBeNull();
    }
    expect(matchProhibited({ description: 'Cotton t-shirt', category: 'Apparel', hsCode: '6109.10.00' })).toBeNull();
  });

  it('takes another list when an operator configures one', () => {
    const list: ProhibitedEntry[] = [{ id: 'perfume', label: 'Perfume (operator rule)', keywords: ['perfume'], categories: [], tariff_prefixes: ['3303'] }];
    expect(matchProhibited({ description: 'Perfume 100ml' }, list)).toMatchObject({ id: 'perfume', matchedOn: 'description' });
    expect(matchProhibited({ description: '9mm pistol' }, list)).toBeNull();
  });

  it('normalizes text for matching: accents, case, punctuation', () => {
    expect(normalizeText('  Li-Ion  BATERÍA, ñandú! ')).toBe('li ion bateria nandu');
  });
});
