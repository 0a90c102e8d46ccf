import { describe, expect, it } from 'vitest';
import { calibration } from '#core/tariff/calibration';
import { builtinTariff } from '#core/tariff/builtin';
import { createOfflineClassifier, normalizeText } from '#core/tariff/classifier';
import { createHsIndex } from '#core/tariff/hs-fallback';
import { hsNomenclature } from '#infra/tariff/hs-nomenclature';
import { attributeFactor, genderOfTerms, genderOfWording, materialsOfWording, mayHaveEngine, quantitiesOf, rangesOf } from '#core/tariff/attributes';

const offline = createOfflineClassifier(builtinTariff);
const hs = createHsIndex(hsNomenclature);
const classify = (description: string) => offline.classify({ description }, hs);

describe('what a description says beyond the product', () => {
  it('reads gender words in Spanish and English; unisex or both name none', () => {
    expect(genderOfTerms(normalizeText('Campera caballero'))).toBe('male');
    expect(genderOfTerms(normalizeText("Men's jacket"))).toBe('male');
    expect(genderOfTerms(normalizeText('Remera niña'))).toBe('female');
    expect(genderOfTerms(normalizeText('Ladies coat'))).toBe('female');
    expect(genderOfTerms(normalizeText('Buzo unisex'))).toBeUndefined();
    expect(genderOfTerms(normalizeText('Pijama hombre y mujer'))).toBeUndefined();
  });

  it("reads a row's or subheading's gender from its own wording", () => {
    expect(genderOfWording("Coats; women's or girls', overcoats, of man-made fibres")).toBe('female');
    expect(genderOfWording('Camisas para hombres o niños, de algodón')).toBe('male');
    expect(genderOfWording('T-shirts, knitted, of cotton')).toBeUndefined();
  });

  it('reads figures with a unit, fractions and decimals included', () => {
    expect(quantitiesOf('Moto 250 cc')).toEqual([{ dim: 'cc', value: 250 }]);
    expect(quantitiesOf('Motor 1/2 HP')[0]).toMatchObject({ dim: 'power' });
    expect(quantitiesOf('Motor 1/2 HP')[0].value).toBeCloseTo(372.85);
    expect(quantitiesOf('Panel 1,5kw')).toEqual([{ dim: 'power', value: 1500 }]);
    expect(quantitiesOf('Relé 24V')).toEqual([{ dim: 'voltage', value: 24 }]);
    expect(quantitiesOf('Remera talle XL 100% algodon')).toEqual([]);
  });

  it('reads the ranges the nomenclature states', () => {
    expect(rangesOf('of cylinder capacity exceeding 50cc but not exceeding 250cc')).toEqual([{ dim: 'cc', min: 50, max: 250, minIncluded: false, maxIncluded: true }]);
    expect(rangesOf('cylinder capacity over 1500 but not over 3000cc')).toEqual([{ dim: 'cc', min: 1500, max: 3000, minIncluded: false, maxIncluded: true }]);
    expect(rangesOf('relays, for a voltage exceeding 60 volts')).toEqual([{ dim: 'voltage', min: 60, max: Infinity, minIncluded: false, maxIncluded: false }]);
    expect(rangesOf('transformers having a power handling capacity exceeding 650kVA but not exceeding 10,000kVA')[0]).toMatchObject({ min: 650_000, max: 10_000_000 });
    expect(rangesOf('fans with a self-contained electric motor of 125 W or less')).toEqual([{ dim: 'power', min: 0, max: 125, minIncluded: true, maxIncluded: true }]);
  });

  it("reads a row's materials from its wording", () => {
    expect(materialsOfWording("Men's or boys' trousers, of man-made fibres")).toEqual(expect.arrayContaining(['synthetic', 'artificial']));
    expect(materialsOfWording('Artículos de mesa o de cocina, de madera')).toEqual(['wood']);
  });

  it('keeps a row whole when nothing disagrees, and less of it when gender, figure or material does', () => {
    expect(attributeFactor({}, {})).toBe(1);
    expect(attributeFactor({ gender: 'male' }, { garment: true, gender: 'female' })).toBeLessThan(1);
    // HS chapter 61 note 9 / chapter 62 note 8: a garment not identifiable as men's or women's goes with women's.
    expect(attributeFactor({}, { garment: true, gender: 'male' })).toBeLessThan(attributeFactor({}, { garment: true, gender: 'female' }));
    const ranges = rangesOf('for a voltage not exceeding 60 volts');
    expect(attributeFactor({ quantities: [{ dim: 'voltage', value: 380 }] }, { ranges })).toBeLessThan(1);
    expect(attributeFactor({ quantities: [{ dim: 'voltage', value: 24 }] }, { ranges })).toBeGreaterThan(1);
    expect(attributeFactor({ materials: ['wood'] }, { materials: ['stainless'] })).toBeLessThan(1);
    expect(attributeFactor({ quantities: [{ dim: 'cc', value: 50 }] }, { engine: false })).toBeLessThan(1);
    expect(attributeFactor({ quantities: [{ dim: 'cc', value: 50 }] }, { engine: true })).toBe(1);
    expect(attributeFactor({ quantities: [{ dim: 'voltage', value: 220 }] }, { engine: false })).toBe(1);
  });

  it('knows the chapters whose goods may have an engine by its cylinder capacity', () => {
    expect(['8407.32', '8502.20', '8711.10.00', '8903.99', '8467.81'].filter(mayHaveEngine)).toHaveLength(5);
    expect(['9503.00.10', '6109.10.00', '3926.90.90'].filter(mayHaveEngine)).toEqual([]);
  });
});

describe('the classifier with these attributes', () => {
  it('routes a garment to the heading of the gender the description names', () => {
    expect(classify('Parka acolchada caballero').ncm_code).toBe('6201.40.00');
    expect(classify('Parka acolchada señora').ncm_code).toBe('6202.40.00');
  });

  it("sends a garment of no stated gender (or unisex) to the women's heading where the table has both", () => {
    expect(classify('Parka acolchada unisex').ncm_code).toBe('6202.40.00');
  });

  it('reads the cylinder capacity and the voltage where the nomenclature splits by them', () => {
    expect(classify('Motocicleta 650cc').ncm_code).toBe('8711.40');
    expect(classify('Moto 49cc').ncm_code).toBe('8711.10');
    expect(classify('Relay 24V').ncm_code).toBe('8536.41');
    expect(classify('Relay 380V').ncm_code).toBe('8536.49');
  });

  it('does not answer a toy with confidence for a description that gives an engine capacity', () => {
    // "Scooter" alone is a kick scooter (9503); "Scooter 50cc" has an engine, which no toy row may claim confidently.
    expect(classify('Scooter').ncm_code).toBe('9503.00.10');
    expect(classify('Scooter 50cc').confidence).toBeLessThan(calibration.review_below);
    expect(classify('Motor scooter 50cc').ncm_code).toMatch(/^8711/);
    // Spanish names of a moped reach the HS tier's motorcycles by their capacity.
    expect(classify('Motoneta 50cc').ncm_code).toBe('8711.10');
    expect(classify('Motoneta 110cc').ncm_code).toBe('8711.20');
  });

  it('prefers the sibling of the material the description names', () => {
    expect(classify('Medias de poliamida').ncm_code).toBe('6115.96.00');
    expect(classify('Mochila de cuero').ncm_code).toBe('4202.91.00');
  });

  it('reads a brand line as the product it names, but not when it names what an accessory fits', () => {
    expect(classify('Apple AirPods 3').ncm_code).toBe('8518.30.00');
    expect(classify('Kindle Oasis').ncm_code).toBe('8543.70');
    expect(classify('Funda para AirPods').ncm_code).not.toBe('8518.30.00');
    expect(classify('Funda AirPods').ncm_code).not.toBe('8518.30.00');
  });
});
