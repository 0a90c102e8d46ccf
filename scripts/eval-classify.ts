/**
 * `npm run eval:classify`: runs the offline tariff classifier over the labeled set in
 * test/fixtures/tariff-labeled.csv (product descriptions as couriers send them, each with its
 * correct NCM) and prints the accuracy at 4, 6 and 8 digits, the throughput and the first misses.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { builtinTariff } from '../lambdas/core/tariff/builtin';
import { createOfflineClassifier, type OfflineClassifier } from '../lambdas/core/tariff/classifier';
import { ncmDigits, type TariffRow } from '../lambdas/core/tariff/table';

export const labeledSetPath = fileURLToPath(new URL('../test/fixtures/tariff-labeled.csv', import.meta.url));

export interface LabeledItem {
  line: number;
  description: string;
  ncm: string;
}

/** `description,ncm` lines; the description may be quoted. The NCM never holds a comma, so the last comma splits. */
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
}

export interface Evaluation {
  items: number;
  /** Share of items whose first 4 / 6 / 8 digits match the label, 0 to 1. */
  accuracy4: number;
  accuracy6: number;
  accuracy8: number;
  itemsPerSecond: number;
  /** Share of items below the review threshold of the channel rules (0.6). */
  belowReview: number;
  misses: Miss[];
}

export function evaluate(classifier: OfflineClassifier, items: readonly LabeledItem[], rounds = 20): Evaluation {
  let hit4 = 0;
  let hit6 = 0;
  let hit8 = 0;
  let low = 0;
  const misses: Miss[] = [];
  for (const item of items) {
    const c = classifier.classify({ description: item.description });
    const got = ncmDigits(c.ncm_code);
    const want = ncmDigits(item.ncm);
    if (got.slice(0, 4) === want.slice(0, 4)) hit4++;
    else misses.push({ line: item.line, description: item.description, expected: item.ncm, got: c.ncm_code, confidence: c.confidence });
    if (got.slice(0, 6) === want.slice(0, 6)) hit6++;
    if (got === want) hit8++;
    if (c.confidence < 0.6) low++;
  }
  const started = performance.now();
  for (let r = 0; r < rounds; r++) for (const item of items) classifier.classify({ description: item.description });
  const seconds = (performance.now() - started) / 1000;
  const n = items.length;
  return {
    items: n,
    accuracy4: hit4 / n,
    accuracy6: hit6 / n,
    accuracy8: hit8 / n,
    itemsPerSecond: Math.round((rounds * n) / seconds),
    belowReview: low / n,
    misses,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function report(e: Evaluation, table: readonly TariffRow[]): string {
  const lines = [
    `Labeled items:        ${e.items} (tariff table: ${table.length} rows)`,
    `Accuracy, 4 digits:   ${pct(e.accuracy4)}`,
    `Accuracy, 6 digits:   ${pct(e.accuracy6)}`,
    `Accuracy, 8 digits:   ${pct(e.accuracy8)}`,
    `Below 0.6 confidence: ${pct(e.belowReview)} (sent to review by the channel rules)`,
    `Throughput:           ${e.itemsPerSecond.toLocaleString('en-US')} items/s`,
    '',
    `Misses at 4 digits (${e.misses.length}; first 20):`,
    ...e.misses.slice(0, 20).map((m) => `  line ${m.line}: "${m.description}" expected ${m.expected}, got ${m.got} (${m.confidence})`),
  ];
  return lines.join('\n');
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
  console.log(report(evaluate(classifier, readLabeledSet()), builtinTariff));
}
