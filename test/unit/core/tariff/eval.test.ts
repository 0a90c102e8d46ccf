import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinTariff } from '#core/tariff/builtin';
import { createOfflineClassifier } from '#core/tariff/classifier';
import { calibration } from '#core/tariff/calibration';
import { createHsIndex } from '#core/tariff/hs-fallback';
import { hsNomenclature } from '#infra/tariff/hs-nomenclature';
import { findRow, ncmDigits } from '#core/tariff/table';
import { fitConfidenceMap } from '#core/tariff/calibration';
import { evaluate, evaluateBedrock, fitCalibration, heldoutSetPath, readExpertSet, readLabeledSet, reviewThreshold, type NamedSet } from '#scripts/eval-classify';

const labeled = readLabeledSet();
const hs = createHsIndex(hsNomenclature);

/**
 * Floors a little under the figures last measured (issue 21: 4 digits 97.8%, 6 digits 97.2% on 644
 * items, a third of them beyond e-commerce), so a change to the table, the HS tier or the classifier
 * that loses accuracy fails here.
 */
const floor4 = 0.97;
const floor6 = 0.97;

describe('the labeled tariff set', () => {
  it('has at least 600 product descriptions, each with an 8-digit NCM or a 6-digit HS subheading', () => {
    expect(labeled.length).toBeGreaterThanOrEqual(600);
    for (const item of labeled) {
      expect(item.description.length, `line ${item.line}`).toBeGreaterThan(2);
      expect(item.ncm, `line ${item.line}`).toMatch(/^\d{4}\.\d{2}(\.\d{2})?$/);
    }
  });

  it('labels NCM codes of the built-in table, or subheadings of the HS nomenclature the table has no row under', () => {
    const wrong = labeled
      .filter((item) => {
        const digits = ncmDigits(item.ncm);
        if (digits.length === 8) return !findRow(builtinTariff, item.ncm);
        return !hs.subheading(digits) || builtinTariff.some((r) => ncmDigits(r.ncm).startsWith(digits));
      })
      .map((item) => `line ${item.line}: ${item.ncm}`);
    expect(wrong).toEqual([]);
  });

  it('has at least a third of its descriptions beyond the built-in table of common e-commerce goods', () => {
    const beyond = labeled.filter((item) => ncmDigits(item.ncm).length === 6);
    expect(beyond.length * 3).toBeGreaterThanOrEqual(labeled.length);
  });

  it('is classified offline with the HS tier above the accuracy floors, with no wrong code at confidence 0.8 or more', () => {
    const e = evaluate(createOfflineClassifier(builtinTariff), labeled, hs, 1);
    expect(e.accuracy4).toBeGreaterThanOrEqual(floor4);
    expect(e.accuracy6).toBeGreaterThanOrEqual(floor6);
    expect(e.confidentMisses).toEqual([]);
  });

});

describe('the calibration', () => {
  const heldout = readLabeledSet(heldoutSetPath);

  it('is the one the calibration set gives today: a change of the classifier, the table or the set that moves it fails here until `npm run eval:classify -- --write`', () => {
    const fit = fitCalibration(createOfflineClassifier(builtinTariff, { confidenceMap: null }), heldout, hs);
    expect(calibration.set).toBe('test/fixtures/tariff-heldout.csv');
    expect(calibration.items).toBe(heldout.length);
    expect(calibration.map).toEqual(fit.map);
    expect(calibration.review_below).toBe(fit.reviewBelow);
  });

  it('keeps at least 95% of the calibration items that clear the review right at 6 digits', () => {
    const e = evaluate(createOfflineClassifier(builtinTariff), heldout, hs, 1);
    expect(e.cleared).toBeGreaterThan(0);
    expect(e.clearedPrecision).toBeGreaterThanOrEqual(0.95);
  });

  it('never lets an answer without an NCM of the table clear the review', () => {
    const classifier = createOfflineClassifier(builtinTariff);
    const hsOnly = [...labeled, ...heldout].map((item) => classifier.classify({ description: item.description }, hs)).filter((c) => ncmDigits(c.ncm_code).length < 8);
    expect(hsOnly.length).toBeGreaterThan(0);
    expect(hsOnly.filter((c) => c.confidence >= calibration.review_below).map((c) => c.ncm_code)).toEqual([]);
  });
});

describe('the held-out tariff set', () => {
  const heldout = readLabeledSet(heldoutSetPath);

  // Six items are labeled at 6 digits although the table has rows under their subheading (9207.90,
  // 9025.19, 8467.29, 9018.90, 4014.90 twice): the table's NCM there may not be the product's, and the
  // right one is not certain.
  it('labels NCM codes of the built-in table, or subheadings of the HS nomenclature', () => {
    expect(heldout.length).toBeGreaterThanOrEqual(120);
    const wrong = heldout
      .filter((item) => {
        const digits = ncmDigits(item.ncm);
        if (!/^\d{4}\.\d{2}(\.\d{2})?$/.test(item.ncm)) return true;
        if (digits.length === 8) return !findRow(builtinTariff, item.ncm);
        return !hs.subheading(digits);
      })
      .map((item) => `line ${item.line}: ${item.ncm}`);
    expect(wrong).toEqual([]);
  });

  it('shares no description with the labeled set', () => {
    const seen = new Set(labeled.map((item) => item.description.toLowerCase()));
    expect(heldout.filter((item) => seen.has(item.description.toLowerCase())).map((item) => item.line)).toEqual([]);
  });
});

describe('the review threshold', () => {
  it('is the lowest confidence whose items at and above it are at least 95% right', () => {
    const results = [
      ...Array.from({ length: 50 }, () => ({ confidence: 0.9, ok: true })),
      ...Array.from({ length: 10 }, (_, k) => ({ confidence: 0.62, ok: k < 5 })),
      { confidence: 0.72, ok: true },
    ];
    expect(reviewThreshold(results)).toBe(0.65);
    expect(reviewThreshold([...results, ...Array.from({ length: 2 }, () => ({ confidence: 0.91, ok: false }))])).toBe(0.65);
    expect(reviewThreshold([...results, ...Array.from({ length: 3 }, () => ({ confidence: 0.91, ok: false }))])).toBe(0.95);
  });

  it('counts no answer that is always reviewed (no NCM of the table) among those that clear it', () => {
    expect(reviewThreshold([{ confidence: 0.9, ok: true }, { confidence: 0.9, ok: false, reviewed: true }])).toBe(0.5);
  });

  it('stays at 0.5 when everything is right', () => {
    expect(reviewThreshold([{ confidence: 0.3, ok: true }])).toBe(0.5);
  });
});

describe('a test set in the labeled-data format', () => {
  it('is read by its header: source, document, 6-digit code and description; lines without a 6-digit code or a description are left out', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'labeled-')), 'test.tsv');
    writeFileSync(path, ['source\tdoc_id\tdate\tlang\ths6\tdescription', 'cbp-cross\tNY N123456\t2024-01-02\ten\t640411\tRunning shoes, textile uppers', 'cbp-cross\tNY N1\t\ten\t6404\tno code', 'ebti\tX\t\tes\t950300\t  ', ''].join('\n'));
    expect(readExpertSet(path)).toEqual([{ line: 2, description: 'Running shoes, textile uppers', ncm: '6404.11', source: 'cbp-cross', doc: 'NY N123456' }]);
  });

  it('names a missing column', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'labeled-')), 'test.tsv');
    writeFileSync(path, 'source\tdoc_id\tdescription\nx\ty\tz\n');
    expect(() => readExpertSet(path)).toThrow(/no column hs6/);
  });
});

describe('the Bedrock tier on the sets (eval:classify --bedrock)', () => {
  it("fits the model's confidence map on its calibration answers alone and reports every set with the mapped confidence", async () => {
    const item = (n: number, ncm: string) => ({ line: n, description: `product ${n}`, ncm });
    const calibrationItems = Array.from({ length: 40 }, (_, n) => item(n, '6404.11.00'));
    const testItems = Array.from({ length: 10 }, (_, n) => item(100 + n, '6404.11.00'));
    const all: NamedSet[] = [
      { name: 'build', what: 'b', items: [item(900, '6404.11.00')] },
      { name: 'calibration', what: 'c', items: calibrationItems },
      { name: 'test', what: 't', items: testItems },
    ];
    // The model says 0.95 of everything; it is right on the calibration set's first half only.
    const asked: string[] = [];
    const answer = async (description: string) => {
      asked.push(description);
      const n = Number(description.split(' ')[1]);
      return { ncm_code: n < 20 || n >= 100 ? '6404.11.00' : '6403.99.90', confidence: 0.95, source: 'ai' };
    };
    const { rows, ai } = await evaluateBedrock(answer, all, 3, 0.8);
    expect(asked.length).toBe(51);
    expect(ai).toMatchObject({ items: 40, accuracy6: 0.5 });
    // 20 right of 40 at 0.95: (20 + 4 x 0.95) / 44.
    expect(ai.map.find((s) => s.from === 0.9)).toMatchObject({ items: 40, right: 20, confidence: 0.54 });
    const test = rows.find((r) => r.set.name === 'test')!.e;
    expect(test.accuracy6).toBe(1);
    expect(test.cleared).toBe(0);
  });
});

describe('the confidence map', () => {
  it('answers the share right per raw band, shrunk towards the raw score, never lower for a higher score, and no more for a band without items than the band below', () => {
    const at = (raw: number, n: number, right: number) => Array.from({ length: n }, (_, k) => ({ raw, ok: k < right }));
    const map = fitConfidenceMap([...at(0.47, 20, 10), ...at(0.62, 10, 4), ...at(0.72, 30, 29)]);
    const of = (raw: number) => map.find((s) => raw >= s.from && (raw < s.to || s.to === 1))!.confidence;
    // 0.45-0.5: (10 + 4 x 0.475) / 24 = 0.50; 0.6-0.65: (4 + 4 x 0.625) / 14 = 0.46, lower, so pooled: 18.4 / 38.
    expect(of(0.47)).toBe(0.48);
    expect(of(0.62)).toBe(0.48);
    expect(of(0.52)).toBe(0.48);
    // 0.7-0.75: (29 + 4 x 0.725) / 34.
    expect(of(0.72)).toBe(0.94);
    expect(of(0.95)).toBe(0.94);
    // Below every band that holds items: its raw midpoint, at most the first band's value.
    expect(of(0.35)).toBe(0.38);
    const values = map.map((s) => s.confidence);
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });
});
