import type { TariffRow } from './table';
import type { ManifestItem } from '../manifests/submission';
import type { HsIndex } from './hs-fallback';
import { candidates, fallback, partner, tableAnswer } from './answers';
import { hsAnswer, hsCouldHelp, keepDeclared } from './hs-tier';
import { readQuery } from './query';
import { best } from './ranking';
import { defaultFallbackNcm, indexTable, type IndexedTable } from './table-index';
import { normalizeText } from './text';
import type { Classification, ClassifyInput, OfflineClassifier, OfflineClassifierOptions } from './types';
import { calibrated, calibration, underReview as belowThreshold, type ConfidenceStep } from './calibration';

const defaultMap = () => calibration.map;

export { normalizeText } from './text';
export type { Candidate, Classification, ClassificationCandidate, ClassificationSource, ClassifyInput, OfflineClassifier, OfflineClassifierOptions, PartnerCheck } from './types';
export { defaultFallbackNcm } from './table-index';
export { fallbackConfidence, partnerHs6Confidence } from './answers';
export { declaredAgreedConfidence, declaredDisputedConfidence, hsCompletedCap, hsOnlyCap } from './hs-tier';

/**
 * The offline tariff classifier: deterministic retrieval over the tariff table. Every row is indexed
 * once (an inverted index from normalized terms to weighted rows); a product description is
 * normalized the same way and scored against the rows that share its terms, so classifying costs a
 * few map lookups, not a scan of the table.
 *
 * Normalization: lower case, accents and punctuation removed, Spanish and English stop words dropped,
 * plurals folded (`zapatillas` -> `zapatilla`, `relojes` -> `reloj`, `batteries` -> `battery`), and
 * adjacent words joined into phrases of up to four words, so a phrase (`air fryer`, `zapatilla
 * electrica`) outweighs its words. Words after `para` / `for` name the device an accessory fits and
 * words after `con` / `with` a feature, so they count less than the word naming the product.
 * Keywords marked `~` (brands, materials, gender) only tip the balance between rows. A word the index
 * does not know is matched to a keyword word one edit away (typos: `zapatilas`).
 *
 * Scores are summed idf-weighted term weights; ties go to the lower NCM. The confidence combines how
 * much of the description the best row explains with its lead over the runner-up (and over the best
 * row of another heading): a clear, complete match reaches 0.95, a match on brand hints alone stays
 * at or below 0.55, and the fallback row answers 0.1.
 *
 * It is composed of: text.ts (normalization), table-index.ts (the index, typos), query.ts (a
 * description read once), ranking.ts (the candidate search and its scores), explanation.ts (how
 * much a row explains), answers.ts (the partner code, the table's answer and its confidence, the
 * fallback) and hs-tier.ts (the HS tier and a declared code the table lacks).
 */

/** What the classifier reads of a manifest line (the pipeline's ai stage and a landed-cost quote alike). */
export function classifyInputOf(d: Pick<ManifestItem, 'itemDescription' | 'itemName' | 'Category' | 'hsCode'>): ClassifyInput {
  return { description: d.itemDescription, name: d.itemName, category: d.Category, hsCode: d.hsCode };
}

/** One key per product as the classifier reads it: normalized description, name and category. */
export function classificationKey(input: ClassifyInput): string {
  return [input.description, input.name, input.category].map((t) => normalizeText(t ?? '').join(' ')).join('|');
}

export function createOfflineClassifier(table: readonly TariffRow[], opts: OfflineClassifierOptions = {}): OfflineClassifier {
  const tab = indexTable(table, opts.fallbackNcm ?? defaultFallbackNcm);
  const map = opts.confidenceMap === undefined ? defaultMap() : opts.confidenceMap;
  return {
    rows: tab.rows,
    classify: (input, hs) => (map ? calibrate(classify(tab, input, hs), map) : classify(tab, input, hs)),
    hsCouldHelp: (input) => hsCouldHelp(tab, input),
    candidates: (input, n) => candidates(tab, input, n),
    partner: (input) => partner(tab, input),
    fallback: (reason) => fallback(tab, reason),
  };
}

function classify(tab: IndexedTable, input: ClassifyInput, hs?: HsIndex): Classification {
  tab.vocabulary = hs;
  try {
    const found = classifyWith(tab, input, hs);
    return hs && found.source !== 'partner' ? keepDeclared(tab, input, found, hs) : found;
  } finally {
    tab.vocabulary = undefined;
  }
}

/** Below the review threshold: where an answer has no NCM of the table, a broker must choose one. */
const underReview = belowThreshold();

/**
 * The classifier's own answers (`offline`, `hs-fallback`) with the calibrated confidence for their
 * raw score; an answer without an 8-digit NCM of the table (an HS subheading) stays under the review
 * threshold. A partner's declared code and the fallback row keep theirs.
 */
function calibrate(c: Classification, map: readonly ConfidenceStep[]): Classification {
  const own = (source: string) => source === 'offline' || source === 'hs-fallback';
  const confidenceOf = (ncm: string, raw: number) => {
    const conf = calibrated(raw, map);
    return /^\d{4}\.\d{2}\.\d{2}$/.test(ncm) ? conf : Math.min(conf, underReview);
  };
  const candidates = c.candidates?.map((k) => (own(k.source) ? { ...k, confidence: confidenceOf(k.ncm_code, k.confidence) } : k));
  if (!own(c.source)) return candidates ? { ...c, candidates } : c;
  return { ...c, confidence: confidenceOf(c.ncm_code, c.confidence), ...(candidates ? { candidates } : {}) };
}

function classifyWith(tab: IndexedTable, input: ClassifyInput, hs?: HsIndex): Classification {
  const q = readQuery(tab, input);
  const checked = partner(tab, input, q);
  if (checked.classification) return checked.classification;
  const note = checked.note ? ` ${checked.note}` : '';
  const { order, total } = best(tab, q);
  const siblings = order.length ? order.slice(1, 6).filter((i) => tab.rows[i].ncm.slice(0, 4) === tab.rows[order[0]].ncm.slice(0, 4)) : [];
  const fromHs = hs ? hsAnswer(tab, q, hs, order[0], note, siblings) : undefined;
  if (fromHs?.answer) return fromHs.answer;
  if (!order.length) return fallback(tab, `No tariff row matches the description; fallback ${tab.rows[tab.fallbackIndex].ncm}, to be reviewed.${note}`);
  return tableAnswer(tab, q, order, total, fromHs, note);
}
