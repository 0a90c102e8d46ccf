import { describe, expect, it } from 'vitest';
import { builtinTariff } from '#core/tariff/builtin';
import { calibration } from '#core/tariff/calibration';
import { createOfflineClassifier, declaredAgreedConfidence, declaredDisputedConfidence, hsCompletedCap, hsOnlyCap, normalizeText } from '#core/tariff/classifier';
import { createHsIndex, parseNomenclature, positiveText } from '#core/tariff/hs-fallback';
import { hsNomenclature } from '#infra/tariff/hs-nomenclature';
import { ncmDigits } from '#core/tariff/table';

const hs = createHsIndex(hsNomenclature);
const classifier = createOfflineClassifier(builtinTariff);
/** The same classifier answering its raw scores, before the calibration maps them (the caps are on raw scores). */
const raw = createOfflineClassifier(builtinTariff, { confidenceMap: null });

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
    expect(raw.classify({ description: 'Aceite de oliva extra virgen 500ml' }, hs).confidence).toBeLessThanOrEqual(hsOnlyCap);
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
    const c = createOfflineClassifier(table, { confidenceMap: null }).classify({ description: 'Extra virgin olive oil cold pressed' }, hs);
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

describe('a declared NCM the table does not have (issue 32)', () => {
  it('is kept against an HS-only answer of another heading (a declared shotgun answered as ammunition), with both codes and their reasons for review', () => {
    // Before: 9306.90 (ammunition n.e.c.), hs-fallback at 0.37, the declared 9303.20.00 dropped.
    const c = classifier.classify({ description: 'Escopeta calibre 12 con municion', hsCode: '9303.20.00' }, hs);
    expect(c).toMatchObject({ ncm_code: '9303.20.00', source: 'partner', confidence: declaredDisputedConfidence });
    expect(c.confidence).toBeLessThan(calibration.review_below);
    expect(c.duty_source).toMatchObject({ status: 'unverified', source: 'estimate' });
    expect(c.description).toMatch(/shotguns/);
    expect(c.candidates?.map((k) => [k.ncm_code, k.source])).toEqual([
      ['9303.20.00', 'partner'],
      ['9306.90', 'hs-fallback'],
    ]);
    expect(c.candidates?.[0].reason).toMatch(/HS 9303\.20/);
    expect(c.candidates?.[1].reason).toMatch(/HS fallback: matched .* in HS 9306\.90/);
    expect(c.reason).toMatch(/9303\.20\.00.*suggests 9306\.90/);
  });

  it('is kept against an HS-only answer that names a gauge instead of the shotgun', () => {
    // Before: 9017.30 (micrometers, callipers and gauges), hs-fallback at 0.4.
    const c = classifier.classify({ description: 'Shotgun 12 gauge pump action', hsCode: '9303.20.00' }, hs);
    expect(c).toMatchObject({ ncm_code: '9303.20.00', source: 'partner' });
    expect(c.candidates?.[1].ncm_code).toBe('9017.30');
  });

  it('keeps its 8 digits when the description matches the same subheading, still to review (the duty is an estimate)', () => {
    // Before: the 6-digit 9302.00, hs-fallback.
    const c = classifier.classify({ description: 'Pistola semiautomatica calibre 9mm', hsCode: '9302.00.00' }, hs);
    expect(c).toMatchObject({ ncm_code: '9302.00.00', source: 'partner', confidence: declaredAgreedConfidence, duty_source: { source: 'estimate' } });
    expect(c.confidence).toBeLessThan(calibration.review_below);
    expect(c.candidates).toBeUndefined();
    expect(c.reason).toMatch(/matches the same subheading/);
  });

  it('is kept against the fallback row when nothing matches the description', () => {
    const c = classifier.classify({ description: 'Carabina calibre 22 LR', hsCode: '9303.30.00' }, hs);
    expect(c).toMatchObject({ ncm_code: '9303.30.00', source: 'partner' });
    expect(c.candidates?.[1]).toMatchObject({ ncm_code: '3926.90.90', source: 'offline', confidence: 0.1 });
  });

  it('is not kept when its first 6 digits are no HS subheading: the description decides', () => {
    expect(classifier.classify({ description: 'aceite de oliva', hsCode: '9999.99.99' }, hs)).toMatchObject({ ncm_code: '1509.20', source: 'hs-fallback' });
    expect(classifier.classify({ description: 'aceite de oliva', hsCode: '1509.20' }, hs)).toMatchObject({ ncm_code: '1509.20', source: 'hs-fallback' });
  });

  it('gives way to an answer of the table that is not always reviewed, which names the declared code in its reason', () => {
    const c = classifier.classify({ description: 'Remera de algodon estampada', hsCode: '9303.20.00' }, hs);
    expect(c).toMatchObject({ ncm_code: '6109.10.00', source: 'offline' });
    expect(raw.classify({ description: 'Remera de algodon estampada', hsCode: '9303.20.00' }, hs).confidence).toBeGreaterThan(hsOnlyCap);
    expect(c.reason).toMatch(/Partner hsCode 9303\.20\.00 has no row/);
  });

  it('makes the service load the tier, which says whether the declared code is valid', () => {
    expect(classifier.hsCouldHelp({ hsCode: '9303.20.00', description: 'remera algodon' })).toBe(true);
    expect(classifier.hsCouldHelp({ hsCode: '9303.20', description: 'remera algodon' })).toBe(false);
  });
});

describe('what the description is, above a word it shares with another kind of goods (issue 32)', () => {
  it('keeps a cosmetic a cosmetic when a finish or colour word of it names a metal in the nomenclature', () => {
    // Before: nickel mattes 7501.10, unwrought gold 7108.12, metal carbides with metallic binders 3824.30 (HS-only, 0.45).
    for (const [description, ncm] of [
      ['Matte lipstick', '3304.10.00'],
      ['Blush matte', '3304.91.00'],
      ['Gold eyeliner', '3304.20.10'],
      ['Metallic eyeshadow', '3304.20.10'],
    ]) {
      expect(classifier.classify({ description }, hs), description).toMatchObject({ ncm_code: ncm, source: 'offline' });
    }
  });

  it('does not take a golden eyeliner for imitation jewellery: a colour alone is no name of the jewellery row', () => {
    // Before: 7117.19.00 at 0.52 (`dorado` was a keyword of imitation jewellery, as strong as `delineador`).
    expect(classifier.classify({ description: 'Delineador dorado' }, hs).ncm_code).toBe('3304.20.10');
    expect(classifier.classify({ description: 'Labial mate metalizado dorado' }, hs).ncm_code).toBe('3304.10.00');
    expect(classifier.classify({ description: 'Pulsera dorada' }, hs).ncm_code).toBe('7117.19.00');
  });

  it('still reads a metal as the material of metal goods', () => {
    expect(classifier.classify({ description: 'Anillo de oro 18k' }, hs).ncm_code).toBe('7113.19.00');
    expect(classifier.classify({ description: 'Cadena de plata 925' }, hs).ncm_code).toBe('7113.11.00');
    expect(classifier.classify({ description: 'Copper pipe 15mm' }, hs).ncm_code).toBe('7411.10');
    expect(classifier.classify({ description: 'Nickel matte' }, hs).ncm_code).toBe('7501.10');
  });

  it('does not take a water bottle for a hot-water bottle of rubber (hygienic articles, 4014)', () => {
    // Before: 4014.90.90 at 0.58 to 0.65: `hot` was dropped as a listing's word, so the rubber row's
    // `hot water bottle` was `water bottle`, and the plastic row lost to it on the material.
    for (const description of ['Stainless steel water bottle', 'Glass water bottle', 'Aluminium water bottle']) {
      expect(classifier.classify({ description }, hs).ncm_code, description).not.toMatch(/^4014/);
    }
    expect(classifier.classify({ description: 'Bolsa de agua caliente' }, hs).ncm_code).toBe('4014.90.90');
    expect(classifier.classify({ description: 'Hot plate electric 1000W' }, hs).ncm_code).toBe('8516.60.00');
  });

  it('does not take a pharmacy bottle for a hygienic article of rubber through a word of that row\'s wording', () => {
    // Before: 4014.90.90 at 0.5 and 0.45, met only through `farmacia` of "artículos de higiene o de farmacia".
    for (const description of ['Frasco de farmacia', 'Botella de farmacia ambar']) {
      expect(classifier.classify({ description }, hs).ncm_code, description).not.toMatch(/^4014/);
    }
    for (const description of ['Chupete de silicona', 'Tetina para mamadera', 'Bolsa de agua caliente']) {
      expect(classifier.classify({ description }, hs).ncm_code, description).toBe('4014.90.90');
    }
  });

  it("still drops a listing's `hot sale`", () => {
    expect(classifier.classify({ description: 'Hot sale remera algodon' }, hs)).toMatchObject({ ncm_code: '6109.10.00' });
    expect(normalizeText('HOT SALE remera')).toEqual(['remera']);
  });
});
