/**
 * `npm run eval:classify`: runs the offline tariff classifier, with the HS fallback tier, over the
 * labeled set in test/fixtures/tariff-labeled.csv (product descriptions as couriers send them, each
 * with its correct NCM, or its HS subheading where the built-in table has no row under it) and
 * prints the accuracy at 4, 6 and 8 digits, a reliability table (accuracy per confidence band),
 * the review threshold the calibration gives, the throughput and the misses. It then reports the
 * held-out set (test/fixtures/tariff-heldout.csv: descriptions written after the labeled set and
 * never used to tune the classifier) separately, at 4, 6 and 8 digits with its confident misses;
 * the labeled set stays the main figure and the only one the calibration is measured on.
 *
 * `npm run eval:classify -- --write` also writes that calibration to
 * lambdas/core/tariff/calibration.ts, which the channel rules read.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { builtinTariff } from '#core/tariff/builtin';
import { createOfflineClassifier, type OfflineClassifier } from '#core/tariff/classifier';
import { createHsIndex, type HsIndex } from '#core/tariff/hs-fallback';
import { hsNomenclature } from '#infra/tariff/hs-nomenclature';
import { calibrationBands, type Calibration } from '#core/tariff/calibration';
import { ncmDigits, type TariffRow } from '#core/tariff/table';

export const labeledSetPath = fileURLToPath(new URL('../test/fixtures/tariff-labeled.csv', import.meta.url));
export const heldoutSetPath = fileURLToPath(new URL('../test/fixtures/tariff-heldout.csv', import.meta.url));
const calibrationPath = fileURLToPath(new URL('../lambdas/core/tariff/calibration.ts', import.meta.url));

export interface LabeledItem {
  line: number;
  description: string;
  /** The 8-digit NCM (`dddd.dd.dd`), or the 6-digit HS subheading (`dddd.dd`) when the built-in table has none under it. */
  ncm: string;
}

/** `description,ncm` lines; the description may be quoted. The code never holds a comma, so the last comma splits. */
export function readLabeledSet(path = labeledSetPath): LabeledItem[] {
  const lines = readFileSync(path, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/);
  const items: LabeledItem[] = [];
  lines.forEach((text, k) => {
    if (k === 0 || !text.trim()) return;
    const cut = text.lastIndexOf(',');
    let description = text.slice(0, cut).trim();
    if (description.startsWith('"') && description.endsWith('"')) description = description.slice(1, -1).replace(/""/g, '"');
    items.push({ line: k + 1, description, ncm: text.slice(cut + 1).trim() });
  });
  return items;
}

export interface Miss {
  line: number;
  description: string;
  expected: string;
  got: string;
  confidence: number;
  source: string;
}

export interface Band {
  from: number;
  to: number;
  items: number;
  /** 6-digit accuracy of the band's items (null when empty). */
  accuracy6: number | null;
}

export interface Evaluation {
  items: number;
  /** Share of items whose first 4 / 6 digits match the label, 0 to 1. */
  accuracy4: number;
  accuracy6: number;
  /** Over the items labeled with 8 digits. */
  accuracy8: number;
  items8: number;
  itemsPerSecond: number;
  /** Share of items below `reviewBelow` (sent to document review by the channel rules). */
  belowReview: number;
  reviewBelow: number;
  /** Items wrong at 6 digits with a confidence of 0.8 or more. */
  confidentMisses: Miss[];
  bands: Band[];
  /** Misses at 6 digits. */
  misses: Miss[];
  /** How many items each source answered. */
  sources: Record<string, number>;
}

/** Below this 6-digit accuracy of the items at or above a confidence, that confidence must go to review. */
export const targetPrecision = 0.98;

/**
 * The review threshold the labeled set supports: the lowest confidence (in steps of 0.05 from 0.5)
 * at and above which the 6-digit accuracy is at least `targetPrecision`.
 */
export function reviewThreshold(results: readonly { confidence: number; ok: boolean }[]): number {
  for (let t = 0.5; t <= 0.951; t += 0.05) {
    const at = Math.round(t * 100) / 100;
    const kept = results.filter((r) => r.confidence >= at);
    if (!kept.length || kept.filter((r) => r.ok).length / kept.length >= targetPrecision) return at;
  }
  return 0.95;
}

export function evaluate(classifier: OfflineClassifier, items: readonly LabeledItem[], hs?: HsIndex, rounds = 20): Evaluation {
  let hit4 = 0;
  let hit6 = 0;
  let hit8 = 0;
  let items8 = 0;
  const misses: Miss[] = [];
  const results: { confidence: number; ok: boolean }[] = [];
  const sources: Record<string, number> = {};
  for (const item of items) {
    const c = classifier.classify({ description: item.description }, hs);
    const got = ncmDigits(c.ncm_code);
    const want = ncmDigits(item.ncm);
    sources[c.source] = (sources[c.source] ?? 0) + 1;
    if (got.slice(0, 4) === want.slice(0, 4)) hit4++;
    const ok = got.slice(0, 6) === want.slice(0, 6);
    if (ok) hit6++;
    else misses.push({ line: item.line, description: item.description, expected: item.ncm, got: c.ncm_code, confidence: c.confidence, source: c.source });
    if (want.length === 8) {
      items8++;
      if (got === want) hit8++;
    }
    results.push({ confidence: c.confidence, ok });
  }
  const started = performance.now();
  for (let r = 0; r < rounds; r++) for (const item of items) classifier.classify({ description: item.description }, hs);
  const seconds = (performance.now() - started) / 1000;
  const n = items.length;
  const reviewBelow = reviewThreshold(results);
  const bands = calibrationBands.map(([from, to]) => {
    const inBand = results.filter((r) => r.confidence >= from && (r.confidence < to || (to === 1 && r.confidence <= 1)));
    return { from, to, items: inBand.length, accuracy6: inBand.length ? inBand.filter((r) => r.ok).length / inBand.length : null };
  });
  return {
    items: n,
    accuracy4: hit4 / n,
    accuracy6: hit6 / n,
    accuracy8: items8 ? hit8 / items8 : 0,
    items8,
    itemsPerSecond: Math.round((rounds * n) / Math.max(seconds, 1e-9)),
    belowReview: results.filter((r) => r.confidence < reviewBelow).length / n,
    reviewBelow,
    confidentMisses: misses.filter((m) => m.confidence >= 0.8),
    bands,
    misses,
    sources,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function report(e: Evaluation, table: readonly TariffRow[], hs?: HsIndex): string {
  const lines = [
    `Labeled items:        ${e.items} (tariff table: ${table.length} rows; HS fallback: ${hs ? `${hs.size} subheadings` : 'off'})`,
    `Accuracy, 4 digits:   ${pct(e.accuracy4)}`,
    `Accuracy, 6 digits:   ${pct(e.accuracy6)}`,
    `Accuracy, 8 digits:   ${pct(e.accuracy8)} (of the ${e.items8} items labeled with 8 digits)`,
    `Wrong at >= 0.8:      ${e.confidentMisses.length}`,
    `Review threshold:     ${e.reviewBelow} (lowest confidence whose items above are >= ${pct(targetPrecision)} right at 6 digits)`,
    `Below the threshold:  ${pct(e.belowReview)} (sent to document review by the channel rules)`,
    `Answered by:          ${Object.entries(e.sources).map(([s, k]) => `${s} ${k}`).join(', ')}`,
    `Throughput:           ${e.itemsPerSecond.toLocaleString('en-US')} items/s`,
    '',
    'Reliability (6 digits per confidence band):',
    '  band        items  accuracy',
    ...e.bands.map((b) => `  ${b.from.toFixed(2)}-${b.to.toFixed(2)}  ${String(b.items).padStart(5)}  ${b.accuracy6 === null ? '-' : pct(b.accuracy6)}`),
    '',
    `Misses at 6 digits (${e.misses.length}; first 30):`,
    ...e.misses.slice(0, 30).map((m) => `  line ${m.line}: "${m.description}" expected ${m.expected}, got ${m.got} (${m.confidence}, ${m.source})`),
  ];
  return lines.join('\n');
}

/** The held-out set's figures: accuracy only (its items never set the calibration). */
export function heldoutReport(e: Evaluation): string {
  return [
    `Held-out items:       ${e.items} (test/fixtures/tariff-heldout.csv; not used for tuning or calibration)`,
    `Accuracy, 4 digits:   ${pct(e.accuracy4)}`,
    `Accuracy, 6 digits:   ${pct(e.accuracy6)}`,
    `Accuracy, 8 digits:   ${pct(e.accuracy8)} (of the ${e.items8} items labeled with 8 digits)`,
    `Wrong at >= 0.8:      ${e.confidentMisses.length}`,
    ...e.confidentMisses.map((m) => `  line ${m.line}: "${m.description}" expected ${m.expected}, got ${m.got} (${m.confidence}, ${m.source})`),
    `Misses at 6 digits:   ${e.misses.length}`,
  ].join('\n');
}

/** The calibration module's text for an evaluation. */
export function calibrationModule(e: Evaluation, measuredOn: string): string {
  const c: Calibration = {
    measured_on: measuredOn,
    items: e.items,
    accuracy6: Math.round(e.accuracy6 * 1000) / 1000,
    target_precision: targetPrecision,
    review_below: e.reviewBelow,
    bands: e.bands.map((b) => ({ from: b.from, to: b.to, items: b.items, accuracy6: b.accuracy6 === null ? null : Math.round(b.accuracy6 * 1000) / 1000 })),
  };
  const text = readFileSync(calibrationPath, 'utf8');
  const start = text.indexOf('export const calibration: Calibration = ');
  const end = text.indexOf(';\n', start);
  return `${text.slice(0, start)}export const calibration: Calibration = ${JSON.stringify(c, null, 2)}${text.slice(end)}`;
}

function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const classifier = createOfflineClassifier(builtinTariff);
  const hs = createHsIndex(hsNomenclature);
  const e = evaluate(classifier, readLabeledSet(), hs);
  console.log(report(e, builtinTariff, hs));
  console.log(`\n${heldoutReport(evaluate(classifier, readLabeledSet(heldoutSetPath), hs, 1))}`);
  if (process.argv.includes('--write')) {
    writeFileSync(calibrationPath, calibrationModule(e, new Date().toISOString().slice(0, 10)));
    console.log(`\nCalibration written to ${calibrationPath}`);
  }
}
