/**
 * `npm run eval:classify`: runs the offline tariff classifier, with the HS fallback tier, over its
 * three sets and prints, for each apart, the accuracy at 4, 6 and 8 digits, the share of items whose
 * confidence clears the review threshold and how many of those are right, the wrong codes at
 * confidence 0.8 or more, and a reliability table:
 *
 * - **build** (test/fixtures/tariff-labeled.csv): descriptions as couriers send them, each with its
 *   correct NCM, or its HS subheading where the built-in table has no row under it; the classifier
 *   was built and tuned on it, so it overstates;
 * - **calibration** (test/fixtures/tariff-heldout.csv): descriptions written after the build set and
 *   never used to tune the classifier; the confidence map and the review threshold are fit on it
 *   and nothing else;
 * - **test** (`--test <file>` or `TARIFF_TEST_SET`): expert-labeled goods in the labeled-data
 *   format (docs/tariff/data.md), looked at once per change of the classifier; none ships with the
 *   repository (docs/tariff/data.md says why).
 *
 * `npm run eval:classify -- --write` fits the map and the threshold on the calibration set and
 * writes them to lambdas/core/tariff/calibration.ts, which the classifier and the channel rules read.
 *
 * `npm run eval:classify -- --bedrock <model id>` runs the same sets through the Bedrock tier in the
 * AWS account of the environment's credentials (AWS_REGION, AWS_PROFILE...) and prints the same
 * table; with `--write` it writes the model's confidence map (fit on the calibration set) as
 * calibration.ts's `ai` instead. It cannot run without an account (docs/tariff/calibration.md).
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { builtinTariff } from '#core/tariff/builtin';
import { createOfflineClassifier, type OfflineClassifier } from '#core/tariff/classifier';
import { createHsIndex, type HsIndex } from '#core/tariff/hs-fallback';
import { hsNomenclature } from '#infra/tariff/hs-nomenclature';
import { calibrated, calibration, calibrationBands, fitConfidenceMap, type Calibration, type ConfidenceStep } from '#core/tariff/calibration';
import { ncmDigits, type TariffRow } from '#core/tariff/table';

export const labeledSetPath = fileURLToPath(new URL('../test/fixtures/tariff-labeled.csv', import.meta.url));
export const heldoutSetPath = fileURLToPath(new URL('../test/fixtures/tariff-heldout.csv', import.meta.url));
const calibrationPath = fileURLToPath(new URL('../lambdas/core/tariff/calibration.ts', import.meta.url));

export interface LabeledItem {
  line: number;
  description: string;
  /** The 8-digit NCM (`dddd.dd.dd`), or the 6-digit HS subheading (`dddd.dd`) when the built-in table has none under it. */
  ncm: string;
  /** Where an expert-labeled item comes from: its source and document (a ruling's number). */
  source?: string;
  doc?: string;
}

/**
 * Items of the labeled-data format (docs/tariff/data.md): a tab-separated header line, then one item
 * per line with at least the columns `source`, `doc_id`, `hs6` and `description`.
 */
export function readExpertSet(path: string): LabeledItem[] {
  const [header, ...rows] = readFileSync(path, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/);
  const cols = header.split('\t');
  const at = (name: string) => {
    const k = cols.indexOf(name);
    if (k < 0) throw new Error(`${path}: no column ${name} in the header line`);
    return k;
  };
  const [source, doc, hs6, description] = [at('source'), at('doc_id'), at('hs6'), at('description')];
  const items: LabeledItem[] = [];
  rows.forEach((text, k) => {
    const f = text.split('\t');
    if (!text.trim() || !/^\d{6}$/.test(f[hs6] ?? '') || !f[description]?.trim()) return;
    items.push({ line: k + 2, description: f[description].trim(), ncm: `${f[hs6].slice(0, 4)}.${f[hs6].slice(4)}`, source: f[source], doc: f[doc] });
  });
  return items;
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
  /** Items at or above `reviewBelow` (they skip the review), and the share of them right at 6 digits (null when none). */
  cleared: number;
  clearedPrecision: number | null;
  /** Items wrong at 6 digits with a confidence of 0.8 or more. */
  confidentMisses: Miss[];
  bands: Band[];
  /** Misses at 6 digits. */
  misses: Miss[];
  /** How many items each source answered. */
  sources: Record<string, number>;
}

/** Below this 6-digit accuracy of the items at or above a confidence, that confidence must go to review. */
export const targetPrecision = 0.95;

/**
 * The review threshold a calibration set supports: the lowest confidence (in steps of 0.05 from 0.5)
 * at and above which the 6-digit accuracy is at least `targetPrecision`. Answers without an NCM of
 * the table (`reviewed`) never clear it.
 */
export function reviewThreshold(results: readonly { confidence: number; ok: boolean; reviewed?: boolean }[]): number {
  for (let t = 0.5; t <= 0.951; t += 0.05) {
    const at = Math.round(t * 100) / 100;
    const kept = results.filter((r) => r.confidence >= at && !r.reviewed);
    if (!kept.length || kept.filter((r) => r.ok).length / kept.length >= targetPrecision) return at;
  }
  return 0.95;
}

export interface Fit {
  map: ConfidenceStep[];
  reviewBelow: number;
  items: number;
  accuracy6: number;
}

/** The confidence map and the review threshold a calibration set gives (`classifier` answers raw scores: `confidenceMap: null`). */
export function fitCalibration(raw: OfflineClassifier, items: readonly LabeledItem[], hs?: HsIndex): Fit {
  const results = items.map((item) => {
    const c = raw.classify({ description: item.description }, hs);
    return { raw: c.confidence, ok: sameHs6(c.ncm_code, item.ncm), reviewed: ncmDigits(c.ncm_code).length < 8 };
  });
  const map = fitConfidenceMap(results);
  const reviewBelow = reviewThreshold(results.map((r) => ({ confidence: calibrated(r.raw, map), ok: r.ok, reviewed: r.reviewed })));
  return { map, reviewBelow, items: items.length, accuracy6: results.filter((r) => r.ok).length / Math.max(1, items.length) };
}

const sameHs6 = (a: string, b: string) => ncmDigits(a).slice(0, 6) === ncmDigits(b).slice(0, 6);

export function evaluate(classifier: OfflineClassifier, items: readonly LabeledItem[], hs?: HsIndex, rounds = 20, reviewBelow = calibration.review_below): Evaluation {
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
  const clearing = results.filter((r) => r.confidence >= reviewBelow);
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
    cleared: clearing.length,
    clearedPrecision: clearing.length ? clearing.filter((r) => r.ok).length / clearing.length : null,
    confidentMisses: misses.filter((m) => m.confidence >= 0.8),
    bands,
    misses,
    sources,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export interface NamedSet {
  name: 'build' | 'calibration' | 'test';
  what: string;
  items: LabeledItem[];
}

/** One line per set: the table docs/tariff/accuracy.md records. */
export function summaryTable(rows: readonly { set: NamedSet; e: Evaluation }[]): string {
  const head = '| set | items | 4 digits | 6 digits | 8 digits | clear the review | right among them | wrong at >= 0.8 |';
  const lines = rows.map(
    ({ set, e }) =>
      `| ${set.name} | ${e.items} | ${pct(e.accuracy4)} | ${pct(e.accuracy6)} | ${e.items8 ? `${pct(e.accuracy8)} (${e.items8})` : '-'} | ${pct(e.cleared / Math.max(1, e.items))} (${e.cleared}) | ${e.clearedPrecision === null ? '-' : pct(e.clearedPrecision)} | ${e.confidentMisses.length} |`,
  );
  return [head, '|---|---|---|---|---|---|---|---|', ...lines].join('\n');
}

/** A set's details: its reliability table (calibrated confidence), the sources that answered, its confident misses and first misses. */
export function report(set: NamedSet, e: Evaluation): string {
  return [
    `${set.name}: ${set.what}`,
    `  Answered by: ${Object.entries(e.sources).map(([s, k]) => `${s} ${k}`).join(', ')}`,
    '  Reliability (6 digits per confidence band):',
    '    band        items  accuracy',
    ...e.bands.map((b) => `    ${b.from.toFixed(2)}-${b.to.toFixed(2)}  ${String(b.items).padStart(5)}  ${b.accuracy6 === null ? '-' : pct(b.accuracy6)}`),
    `  Wrong at >= 0.8 (${e.confidentMisses.length}):`,
    ...e.confidentMisses.slice(0, 20).map((m) => `    line ${m.line}: "${m.description.slice(0, 100)}" expected ${m.expected}, got ${m.got} (${m.confidence}, ${m.source})`),
    `  Misses at 6 digits (${e.misses.length}; first 15):`,
    ...e.misses.slice(0, 15).map((m) => `    line ${m.line}: "${m.description.slice(0, 100)}" expected ${m.expected}, got ${m.got} (${m.confidence}, ${m.source})`),
  ].join('\n');
}

/** The calibration module's text for a fit. */
export function calibrationModule(fit: Fit, e: Evaluation, measuredOn: string): string {
  const c: Calibration = {
    measured_on: measuredOn,
    set: 'test/fixtures/tariff-heldout.csv',
    items: fit.items,
    accuracy6: Math.round(fit.accuracy6 * 1000) / 1000,
    target_precision: targetPrecision,
    review_below: fit.reviewBelow,
    map: fit.map,
    ...(calibration.ai ? { ai: calibration.ai } : {}),
    bands: e.bands.map((b) => ({ from: b.from, to: b.to, items: b.items, accuracy6: b.accuracy6 === null ? null : Math.round(b.accuracy6 * 1000) / 1000 })),
  };
  return withCalibration(c);
}

/** An answer of an asynchronous classifier (the Bedrock tier) for an item. */
export type AsyncClassify = (description: string) => Promise<{ ncm_code: string; confidence: number; source: string }>;

/**
 * The Bedrock tier's figures on the sets: each item classified with the model's own confidence
 * (`concurrency` calls at a time), the map fit on the calibration set's answers, then every set's
 * evaluation with the mapped confidence against the threshold in force.
 */
export async function evaluateBedrock(classify: AsyncClassify, all: readonly NamedSet[], concurrency = 4, reviewBelow = calibration.review_below) {
  const answered = new Map<NamedSet, { item: LabeledItem; c: Awaited<ReturnType<AsyncClassify>> }[]>();
  for (const set of all) {
    const out: { item: LabeledItem; c: Awaited<ReturnType<AsyncClassify>> }[] = new Array(set.items.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < set.items.length) {
          const k = next++;
          out[k] = { item: set.items[k], c: await classify(set.items[k].description) };
        }
      }),
    );
    answered.set(set, out);
  }
  const calibrationSet = all.find((s) => s.name === 'calibration')!;
  const fitOn = answered.get(calibrationSet)!.filter(({ c }) => c.source === 'ai');
  const map = fitConfidenceMap(fitOn.map(({ item, c }) => ({ raw: c.confidence, ok: sameHs6(c.ncm_code, item.ncm) })));
  const accuracy6 = fitOn.filter(({ item, c }) => sameHs6(c.ncm_code, item.ncm)).length / Math.max(1, fitOn.length);
  const rows = all.map((set) => {
    const mapped = new Map(answered.get(set)!.map(({ item, c }) => [item.description, { ...c, confidence: c.source === 'ai' ? calibrated(c.confidence, map) : c.confidence }]));
    const fixed: OfflineClassifier['classify'] = (input) => {
      const hit = mapped.get(input.description ?? '')!;
      return { ncm_code: hit.ncm_code, confidence: hit.confidence, source: hit.source as 'ai', reason: '', duty_rate: 0, description: '', duty_source: { status: 'unverified', source: 'estimate', note: '' } };
    };
    return { set, e: evaluate({ classify: fixed } as OfflineClassifier, set.items, undefined, 1, reviewBelow) };
  });
  return { rows, ai: { items: fitOn.length, accuracy6: Math.round(accuracy6 * 1000) / 1000, map } };
}

/** The calibration module's text with the Bedrock tier's map for `model`. */
export function aiCalibrationModule(model: string, ai: { items: number; accuracy6: number; map: ConfidenceStep[] }, measuredOn: string): string {
  const c: Calibration = { ...calibration, ai: { model, measured_on: measuredOn, ...ai } };
  return withCalibration(c);
}

/** The calibration module's text with `c` as its `calibration`. */
function withCalibration(c: Calibration): string {
  const text = readFileSync(calibrationPath, 'utf8');
  const start = text.indexOf('export const calibration: Calibration = ');
  const end = text.indexOf(';\n', start);
  return `${text.slice(0, start)}export const calibration: Calibration = ${JSON.stringify(c, null, 2)}${text.slice(end)}`;
}

/** The build and calibration sets of the repository, and the test set when one is given. */
export function sets(testPath = process.env.TARIFF_TEST_SET): NamedSet[] {
  return [
    { name: 'build', what: 'test/fixtures/tariff-labeled.csv (the classifier was built and tuned on it)', items: readLabeledSet(labeledSetPath) },
    { name: 'calibration', what: 'test/fixtures/tariff-heldout.csv (never tuned on; the confidence map and the threshold are fit on it)', items: readLabeledSet(heldoutSetPath) },
    ...(testPath ? [{ name: 'test' as const, what: `${testPath} (expert-labeled; looked at once per change)`, items: readExpertSet(testPath) }] : []),
  ];
}

function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

async function bedrockMain(modelId: string, all: NamedSet[], hs: HsIndex) {
  const { BedrockRuntimeClient } = await import('@aws-sdk/client-bedrock-runtime');
  const { createBedrockClassifier } = await import('#infra/tariff/bedrock');
  const tier = createBedrockClassifier({ modelId, offline: createOfflineClassifier(builtinTariff), client: new BedrockRuntimeClient({}), hs: async () => hs, rawConfidence: true });
  const { rows, ai } = await evaluateBedrock((description) => tier.classify({ description }), all);
  console.log(`Bedrock tier: ${modelId}; its confidence map fit on ${ai.items} answers of the calibration set (${pct(ai.accuracy6)} right); review threshold ${calibration.review_below}\n`);
  console.log(summaryTable(rows));
  for (const r of rows) console.log(`\n${report(r.set, r.e)}`);
  if (process.argv.includes('--write')) {
    writeFileSync(calibrationPath, aiCalibrationModule(modelId, ai, new Date().toISOString().slice(0, 10)));
    console.log(`\nThe model's calibration written to ${calibrationPath}`);
  }
}

if (isMain()) {
  const hs = createHsIndex(hsNomenclature);
  const at = process.argv.indexOf('--test');
  const all = sets(at > 0 ? process.argv[at + 1] : undefined);
  const model = process.argv.indexOf('--bedrock');
  if (model > 0) {
    await bedrockMain(process.argv[model + 1], all, hs);
    process.exit(0);
  }
  const fit = fitCalibration(createOfflineClassifier(builtinTariff, { confidenceMap: null }), all[1].items, hs);
  const write = process.argv.includes('--write');
  // With --write the figures are those of the new map; without, of the committed one.
  const classifier = createOfflineClassifier(builtinTariff, write ? { confidenceMap: fit.map } : {});
  const reviewBelow = write ? fit.reviewBelow : calibration.review_below;
  const rows = all.map((set) => ({ set, e: evaluate(classifier, set.items, hs, set.name === 'build' ? 20 : 1, reviewBelow) }));
  console.log(`Tariff table: ${builtinTariff.length} rows; HS fallback: ${hs.size} subheadings; review threshold ${reviewBelow} (>= ${pct(targetPrecision)} right at 6 digits on the calibration set)`);
  console.log(`Throughput: ${rows[0].e.itemsPerSecond.toLocaleString('en-US')} items/s (build set, 20 rounds)\n`);
  console.log(summaryTable(rows));
  if (!all.some((s) => s.name === 'test')) console.log('\nNo test set here: give one with --test <file> or TARIFF_TEST_SET (docs/tariff/data.md).');
  for (const r of rows) console.log(`\n${report(r.set, r.e)}`);
  const stale = fit.reviewBelow !== calibration.review_below || JSON.stringify(fit.map) !== JSON.stringify(calibration.map);
  if (write) {
    writeFileSync(calibrationPath, calibrationModule(fit, rows[1].e, new Date().toISOString().slice(0, 10)));
    console.log(`\nCalibration written to ${calibrationPath}`);
  } else if (stale) console.log('\nThe written calibration is stale: run npm run eval:classify -- --write');
}
