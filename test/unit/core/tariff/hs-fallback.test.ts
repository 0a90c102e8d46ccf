import { describe, expect, it } from 'vitest';
import { builtinTariff } from '../../../../lambdas/core/tariff/builtin';
import { calibration } from '../../../../lambdas/core/tariff/calibration';
import { createOfflineClassifier, hsCompletedCap, hsOnlyCap } from '../../../../lambdas/core/tariff/classifier';
import { createHsIndex, parseNomenclature, positiveText } from '../../../../lambdas/core/tariff/hs-fallback';
import { hsNomenclature } from '../../../../lambdas/core/tariff/hs-nomenclature';
import { ncmDigits } from '../../../../lambdas/core/tariff/table';

const hs = createHsIndex(hsNomenclature);
const classifier = createOfflineClassifier(builtinTariff);

describe('the HS nomenclature data', () => {
  it('holds every 6-digit subheading of HS 2022 with its heading', () => {
    const { headings, subheadings } = parseNomenclature(hsNomenclature);
    expect(subheadings.length).toBe(5612);
    expect(headings.size).toBe(1228);
    for (const s of subheadings) expect(headings.has(s.code.slice(0, 4)), s.code).toBe(true);
  });

  it('knows the HS6 of every row of the built-in table', () => {
    const unknown = builtinTariff.filter((r) => !hs.subheading(ncmDigits(r.ncm).slice(0, 6))).map((r) => r.ncm);
    expect(unknown).toEqual([]);
  });

  it('leaves out what a subheading is not', () => {
    expect(positiveText('Vegetable oils; sunflower-seed oil, other than crude, whether or not refined')).not.toMatch(/crude/);
    expect(positiveText('Spices; pepper, neither crushed nor ground')).not.toMatch(/crushed|ground/);
  });
});

describe('the HS fallback tier', () => {
  it('classifies olive oil to its subheading instead of the nearest row (essential oils)', () => {
    for (const description of ['Aceite de oliva extra virgen 500ml', 'Extra virgin olive oil 1L tin']) {
      const c = classifier.classify({ description }, hs);
      expect(c, description).toMatchObject({ ncm_code: '1509.20', source: 'hs-fallback' });
    }
  });

  it('keeps an answer without an NCM of the table below the review threshold, with an estimated, unverified duty', () => {
    const c = classifier.classify({ description: 'Aceite de oliva extra virgen 500ml' }, hs);
    expect(c.confidence).toBeLessThanOrEqual(hsOnlyCap);
    expect(c.confidence).toBeLessThan(calibration.review_below);
    expect(c.duty_source).toMatchObject({ status: 'unverified', source: 'estimate' });
    expect(c.reason).toMatch(/HS fallback/);
    expect(c.description).toMatch(/olive oil/i);
  });

  it('completes 8 digits from the table when it has a row under the subheading', () => {
    // A Spanish-only table: an English description finds the essential-oils row by "oil" alone.
    const table = [
      { ncm: '3301.29.90', description: 'Los demás aceites esenciales', duty_rate: 10, keywords: ['aceite esencial', 'oil'] },
      { ncm: '1509.20.00', description: 'Aceite de oliva virgen extra', duty_rate: 10 },
    ];
    const c = createOfflineClassifier(table).classify({ description: 'Extra virgin olive oil cold pressed' }, hs);
    expect(c).toMatchObject({ ncm_code: '1509.20.00', source: 'hs-fallback', duty_rate: 10, duty_source: { status: 'imported' } });
    expect(c.confidence).toBeLessThanOrEqual(hsCompletedCap);
    expect(createOfflineClassifier(table).classify({ description: 'Extra virgin olive oil cold pressed' }).ncm_code).toBe('3301.29.90');
  });

  it('leaves a description the table explains to the table', () => {
    for (const [description, ncm] of [
      ['Remera algodón estampada talle M', '6109.10.00'],
      ['Xiaomi Redmi Note 13 128GB smartphone', '8517.13.00'],
    ]) {
      expect(classifier.classify({ description }, hs), description).toMatchObject({ ncm_code: ncm, source: 'offline' });
    }
  });

  it('keeps a partner code the table has, whatever the tier would say', () => {
    expect(classifier.classify({ hsCode: '6109.10.00', description: 'olive oil' }, hs)).toMatchObject({ ncm_code: '6109.10.00', source: 'partner' });
  });

  it('is wanted only when the table leaves a word unexplained', () => {
    expect(classifier.hsCouldHelp({ description: 'remera algodon' })).toBe(false);
    expect(classifier.hsCouldHelp({ description: 'aceite de oliva' })).toBe(true);
    expect(classifier.hsCouldHelp({ hsCode: '6109.10.00', description: 'aceite de oliva' })).toBe(false);
  });

  it('answers the fallback row when neither the table nor the nomenclature knows a word', () => {
    expect(classifier.classify({ description: 'qwxz zzkq' }, hs)).toMatchObject({ source: 'offline', confidence: 0.1 });
  });

  it('gives the same answer to the same input', () => {
    const a = classifier.classify({ description: 'Welding electrodes 6013 2.5mm' }, hs);
    const b = createOfflineClassifier(builtinTariff).classify({ description: 'Welding electrodes 6013 2.5mm' }, createHsIndex(hsNomenclature));
    expect(b).toEqual(a);
  });
});
