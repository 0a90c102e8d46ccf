import { maxDutyRate, ncmDigits, type TariffRow } from './table';
import { importedDutySource, type DutySource } from '../customs/tariff-rates';
import type { HsIndex, HsMatch } from './hs-fallback';
import type { ManifestItem } from '../manifests/submission';
import { attributeFactor, genderOfTerms, isAppearanceTerm, isFinishTerm, isGenderTerm, isMaterialTerm, materialsOfTerms, quantitiesOf, wordingAttributes, type Attributes } from './attributes';
import { gram, maxGram, normalizeText, secondaryWeight, tokens, withBrands, type Token } from './text';

export { normalizeText } from './text';

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
 */

/** `broker`: the partner-code memory gave a broker's earlier decision for the same product (services/review). */
export type ClassificationSource = 'partner' | 'offline' | 'ai' | 'hs-fallback' | 'broker';

export interface Classification {
  /**
   * The 8-digit NCM, `dddd.dd.dd`; from the HS fallback tier, the 6-digit HS subheading `dddd.dd`
   * when the tariff table has no NCM under it (the tier completes 8 digits only where the table knows them).
   */
  ncm_code: string;
  /** Duty of that NCM, percent. */
  duty_rate: number;
  /** 0 to 1; below 0.3 means nothing matched (the fallback row). */
  confidence: number;
  source: ClassificationSource;
  /** Why, in a sentence an operator can read. */
  reason: string;
  /** The NCM's Spanish description. */
  description: string;
  /** Where the duty rate comes from (verified, unverified, or the operator's imported table). */
  duty_source: DutySource;
  /**
   * Two codes for a broker to choose between, each with its reason: the partner's declared NCM (kept,
   * first) and the classifier's answer, when an answer that is always reviewed disagrees with a valid
   * declared NCM the table does not have (`keepDeclared`). Absent otherwise.
   */
  candidates?: ClassificationCandidate[];
}

/** One of the codes a classification leaves to review. */
export interface ClassificationCandidate {
  ncm_code: string;
  source: ClassificationSource;
  confidence: number;
  reason: string;
}

export interface ClassifyInput {
  description?: string;
  name?: string;
  category?: string;
  /** The partner's code (HS6, NCM or longer), any punctuation. */
  hsCode?: string;
}

/** What the classifier reads of a manifest line (the pipeline's ai stage and a landed-cost quote alike). */
export function classifyInputOf(d: Pick<ManifestItem, 'itemDescription' | 'itemName' | 'Category' | 'hsCode'>): ClassifyInput {
  return { description: d.itemDescription, name: d.itemName, category: d.Category, hsCode: d.hsCode };
}

export interface Candidate {
  row: TariffRow;
  score: number;
}

/** What the partner's hsCode decided: a kept classification, or a note on why it was not used. */
export interface PartnerCheck {
  classification?: Classification;
  note?: string;
}

export interface OfflineClassifier {
  /** The table's rows in NCM order. */
  readonly rows: readonly TariffRow[];
  /**
   * The classification of a product. With `hs` (the HS fallback tier), a description the table's best
   * row explains less of than a subheading of the whole nomenclature gets that subheading instead.
   */
  classify(input: ClassifyInput, hs?: HsIndex): Classification;
  /**
   * Whether the HS tier could change the answer: nothing matches, the best row leaves a word of the
   * description unexplained, or the partner declared an NCM the table lacks (the tier checks it is valid).
   */
  hsCouldHelp(input: ClassifyInput): boolean;
  /** The best `n` rows for the description (no partner code, no fallback), best first. */
  candidates(input: ClassifyInput, n: number): Candidate[];
  /** The partner hsCode alone: kept when the table has it, else a note saying why not. */
  partner(input: ClassifyInput): PartnerCheck;
  /** The answer when nothing matches (or the AI answered none), with a low confidence. */
  fallback(reason: string): Classification;
}

export interface OfflineClassifierOptions {
  /** The NCM answered when nothing matches; if the table lacks it, the table's first row. */
  fallbackNcm?: string;
}

/** "Other articles of plastics": the commonest catch-all of small parcels. */
export const defaultFallbackNcm = '3926.90.90';
export const fallbackConfidence = 0.1;
/** HS-tier answers whose NCM the table completes stay at or below this; the rest below the review threshold. */
export const hsCompletedCap = 0.75;
/** Below the lowest review threshold the calibration can give (0.5): an answer without an NCM of the table is always reviewed. */
export const hsOnlyCap = 0.45;
/**
 * A valid declared NCM the table does not have, kept against an answer that is always reviewed: its
 * confidence when the answer is the same HS subheading (the duty is still an estimate, so a broker
 * confirms it) and when it is another one (a broker chooses between the two). Both are under any
 * review threshold.
 */
export const declaredAgreedConfidence = hsOnlyCap;
export const declaredDisputedConfidence = 0.3;
/** A match that rests only on typo-corrected words stays at or below this. */
const typoOnlyCap = 0.75;
/**
 * A match that meets no keyword whole (only words of a keyword phrase, `sal` of `sales de bano`, or
 * words of a row's description) stays at or below this.
 */
const partialOnlyCap = 0.65;
/**
 * The weight of a word neither the table nor the nomenclature knows (an untranslated word, a brand):
 * a typical word (as much as `hsTableWordWeight`), so what the product is called but nobody recognises lowers
 * the confidence (`Amoxicilina capsulas` is not sure of being a supplement because of `capsulas`).
 * Words with digits (sizes, models) weigh nothing.
 */
const unknownWordWeight = 4;
/** The weight of a word the table knows and the nomenclature does not (about the idf of a word in 100 subheadings). */
const hsTableWordWeight = 4;
/** How much more of the description the nomenclature must explain than the table's best row (half a typical word). */
const hsLead = 2;
/** What a whole phrase adds, for either side (at most two phrases count). */
const hsPhraseWeight = 1;
export const partnerHs6Confidence = 0.9;
/** How much a material word weighs, against a product word, when the table and the HS tier are compared. */
const materialWordShare = 0.5;

/** One key per product as the classifier reads it: normalized description, name and category. */
export function classificationKey(input: ClassifyInput): string {
  return [input.description, input.name, input.category].map((t) => normalizeText(t ?? '').join(' ')).join('|');
}

/* ---------------- the index ---------------- */

const keywordWeight = 1;
/** A phrase of three or more words: its inner bigrams. */
const subPhraseWeight = 0.5;
/** A phrase's single words: they match, but less than a one-word keyword. */
const phraseWordWeight = 0.4;
const weakWeight = 0.35;
const descriptionWeight = 0.5;
const categoryWeight = 0.6;
/** A row met only through words of its description, when a word of the description names a kind of product it does not explain. */
const wordingOnlyFactor = 0.5;
/** A two-word phrase met with one word between its words. */
const skipPhraseWeight = 0.5;
const fuzzyWeight = 0.7;
/** A row matched only through weights at or below this matched on weak hints (brands) alone. */
const strongThreshold = weakWeight + 0.01;

interface Posting {
  rows: Int32Array;
  weights: Float64Array;
  idf: number;
}

interface Index {
  postings: Map<string, Posting>;
  /** Terms that are a one-word keyword of some row: words that name a kind of product. */
  heads: Set<string>;
  /** Per row, term -> weight (0..1), to explain a match. */
  rowTerms: Map<string, number>[];
  /** Per row, the words of its keywords other than weak hints (not the words of its description). */
  rowKeywords: Set<string>[];
  /** Words of some row's keywords other than weak hints: words that name a kind of product. */
  namingWords: Set<string>;
  /** Single words of keywords, the ones a typo is matched against. */
  keywordWords: Set<string>;
}

function buildIndex(rows: readonly TariffRow[]): Index {
  const rowTerms: Map<string, number>[] = rows.map(() => new Map());
  const rowKeywords: Set<string>[] = rows.map(() => new Set());
  const namingWords = new Set<string>();
  const heads = new Set<string>();
  const keywordWords = new Set<string>();
  const put = (i: number, term: string, w: number) => {
    const m = rowTerms[i];
    if ((m.get(term) ?? 0) < w) m.set(term, w);
  };
  rows.forEach((row, i) => {
    for (const text of [row.description, row.description_en ?? '']) for (const t of tokens(text)) put(i, t.term, descriptionWeight);
    for (const raw of row.keywords ?? []) {
      const marked = raw.startsWith('~');
      const terms = tokens(marked ? raw.slice(1) : raw).map((t) => t.term);
      if (!terms.length) continue;
      // A finish or colour alone (`dorado`, `plateado` of the imitation jewellery row) says how a product
      // looks, not what it is: a weak hint, as materials are (`Labial mate metalizado dorado` is no jewel).
      const weak = marked || (terms.length === 1 && isFinishTerm(terms[0]));
      for (const t of terms) keywordWords.add(t);
      if (!weak) for (const t of terms) rowKeywords[i].add(t), namingWords.add(t);
      if (terms.length === 1) {
        put(i, terms[0], weak ? weakWeight : keywordWeight);
        if (!weak) heads.add(terms[0]);
        continue;
      }
      for (const t of terms) put(i, t, weak ? weakWeight : phraseWordWeight);
      if (terms.length > 2) for (let k = 1; k < terms.length; k++) put(i, gram(terms.slice(k - 1, k + 1)), weak ? weakWeight : subPhraseWeight);
      put(i, gram(terms.slice(0, maxGram)), weak ? weakWeight : keywordWeight);
    }
  });

  const byTerm = new Map<string, { rows: number[]; weights: number[] }>();
  rowTerms.forEach((m, i) => {
    for (const [term, w] of m) {
      let p = byTerm.get(term);
      if (!p) byTerm.set(term, (p = { rows: [], weights: [] }));
      p.rows.push(i);
      p.weights.push(w);
    }
  });
  const n = rows.length;
  const postings = new Map<string, Posting>();
  for (const [term, p] of byTerm) {
    const idf = Math.log(1 + n / p.rows.length);
    postings.set(term, { rows: Int32Array.from(p.rows), weights: Float64Array.from(p.weights, (w) => w * idf), idf });
  }
  return { postings, heads, rowTerms, rowKeywords, namingWords, keywordWords };
}

/** Single-deletion variants of keyword words -> the first such word in sort order. */
function buildTypoIndex(words: Iterable<string>): Map<string, string> {
  const deletes = new Map<string, string>();
  for (const word of words) {
    if (word.length < 4) continue;
    for (const d of deletionsOf(word)) {
      const known = deletes.get(d);
      if (known === undefined || word < known) deletes.set(d, word);
    }
  }
  return deletes;
}

function deletionsOf(term: string): string[] {
  const out = [term];
  for (let k = 0; k < term.length; k++) out.push(term.slice(0, k) + term.slice(k + 1));
  return out;
}

/* ---------------- the classifier ---------------- */

const round2 = (x: number) => Math.round(x * 100) / 100;

interface QueryTerm {
  term: string;
  weight: number;
  /** A single word (phrases add score but not coverage). */
  unigram: boolean;
  /** Written as the index knows it (not matched through a typo). */
  exact: boolean;
}

export function createOfflineClassifier(table: readonly TariffRow[], opts: OfflineClassifierOptions = {}): OfflineClassifier {
  const rows = [...table].sort((a, b) => (a.ncm < b.ncm ? -1 : a.ncm > b.ncm ? 1 : 0));
  const index = buildIndex(rows);
  const byDigits = new Map(rows.map((r, i) => [ncmDigits(r.ncm), i]));
  const fallbackIndex = byDigits.get(ncmDigits(opts.fallbackNcm ?? defaultFallbackNcm)) ?? 0;
  /** What each row's own wording states: gender (garments of chapters 61 and 62), ranges, materials. */
  const rowAttributes: Attributes[] = rows.map((r) => wordingAttributes(r.ncm, `${r.description} ${r.description_en ?? ''}`, { materials: true }));

  // Scratch buffers reused by every query: classification is synchronous, so one query at a time.
  const scores = new Float64Array(rows.length);
  const covered = new Float64Array(rows.length);
  const strong = new Uint8Array(rows.length);
  /** Met a one-word keyword or a phrase (not only a phrase's words or the description's). */
  const solid = new Uint8Array(rows.length);
  /** During `classify` with the HS tier: a word the nomenclature knows as written is no typo. */
  let vocabulary: HsIndex | undefined;
  const touched: number[] = [];

  /** Whether the table knows a brand or model name as a keyword of its own (a one-word keyword or a phrase). */
  const knownName = (name: readonly string[]) => (name.length === 1 ? index.heads.has(name[0]) : index.postings.has(gram(name.slice(0, maxGram))));
  /**
   * The tokens of a product description as the classifier reads it: with the product types its brand
   * names name, when no other word the table knows says what the product is (`Funda AirPods` is a case).
   */
  const queryTokens = (text: string): Token[] => {
    const toks = withBrands(tokens(text), knownName);
    const described = toks.some((t) => !t.secondary && !t.inferred && !t.brand && (index.postings.has(t.term) || fuzzy(t.term) !== undefined));
    return described ? toks.filter((t) => !t.inferred) : toks;
  };

  /** A description's fields as the classifier reads them, each with its tokens and its weight. */
  function fieldsOf(input: ClassifyInput): [Token[], number][] {
    const fields: [string | undefined, number][] = [
      [input.description, 1],
      [input.name, 1],
      [input.category, categoryWeight],
    ];
    return fields.filter((f): f is [string, number] => Boolean(f[0])).map(([text, weight]) => [queryTokens(text), weight]);
  }

  /**
   * What one classification reads of a description, read once: its fields' tokens, the query terms
   * and the attributes (the table's ranking, the HS tier and the partner check all use them).
   */
  interface Query {
    toks: Token[];
    terms: QueryTerm[];
    attrs: Attributes;
  }

  function readQuery(input: ClassifyInput): Query {
    const fields = fieldsOf(input);
    const toks = fields.flatMap(([t]) => t);
    return { toks, terms: queryTerms(fields), attrs: attributesOf(input, toks) };
  }

  function queryTerms(fields: readonly [Token[], number][]): QueryTerm[] {
    const weights = new Map<string, QueryTerm>();
    const add = (term: string, weight: number, unigram: boolean, exact = true) => {
      const known = weights.get(term);
      if (!known || known.weight < weight) weights.set(term, { term, weight, unigram, exact: exact || (known?.exact ?? false) });
      else if (exact && !known.exact) known.exact = true;
    };
    for (const [fieldToks, fieldWeight] of fields) {
      const toks = fieldToks.map((t) => ({ ...t, known: index.postings.has(t.term) ? t.term : t.inferred ? undefined : fuzzy(t.term) }));
      // What an accessory fits or a feature it has counts less only when a word names the product itself;
      // so does what a brand name names (`Funda AirPods` is a case).
      const named = toks.some((t) => !t.secondary && !t.inferred && t.known !== undefined && index.heads.has(t.known));
      toks.forEach((t, k) => {
        const lesser = t.secondary && named;
        if (t.known) add(t.known, fieldWeight * (lesser ? secondaryWeight : 1) * (t.known === t.term ? 1 : fuzzyWeight), true, t.known === t.term);
        for (let len = 2; len <= Math.min(maxGram, k + 1); len++) add(gram(toks.slice(k + 1 - len, k + 1).map((x) => x.term)), fieldWeight, false);
        // A two-word keyword with one word between (`libro [infantil] para colorear`) meets its phrase, for less.
        if (k >= 2 && !toks[k - 1].inferred && !t.inferred) add(gram([toks[k - 2].term, t.term]), fieldWeight * skipPhraseWeight, false);
      });
    }
    return [...weights.values()].filter((q) => index.postings.has(q.term));
  }

  // Built at the first unknown word: a clean description never pays for it.
  let typos: Map<string, string> | undefined;
  function fuzzy(term: string): string | undefined {
    if (term.length < 5 || /\d/.test(term) || vocabulary?.knows(term)) return undefined;
    typos ??= buildTypoIndex(index.keywordWords);
    for (const d of deletionsOf(term)) {
      const hit = typos.get(d);
      if (hit) return hit;
    }
    return undefined;
  }

  /** What the description says beyond the product's name: gender, figures, materials (not of what it fits). */
  function attributesOf(input: ClassifyInput, toks: readonly Token[]): Attributes {
    const terms = toks.map((t) => t.term);
    const raw = [input.description, input.name].filter(Boolean).join(' ');
    return { gender: genderOfTerms(terms), quantities: quantitiesOf(raw), materials: materialsOfTerms(toks.filter((t) => !t.secondary).map((t) => t.term)) };
  }

  /** Scores every row sharing a term with the query; returns the touched rows, best first. */
  function rank(terms: QueryTerm[], only?: (i: number) => boolean, attrs?: Attributes): { order: number[]; total: number } {
    for (const i of touched) {
      scores[i] = 0;
      covered[i] = 0;
      strong[i] = 0;
      solid[i] = 0;
    }
    touched.length = 0;
    let total = 0;
    const unigramWeight = new Map<string, number>();
    for (const q of terms) if (q.unigram) unigramWeight.set(q.term, q.weight);
    for (const q of terms) {
      const p = index.postings.get(q.term)!;
      if (q.unigram) total += q.weight * p.idf;
      for (let k = 0; k < p.rows.length; k++) {
        const i = p.rows[k];
        if (only && !only(i)) continue;
        if (scores[i] === 0 && covered[i] === 0) touched.push(i);
        scores[i] += q.weight * p.weights[k];
        if (q.unigram) covered[i] += q.weight * p.idf;
        if (p.weights[k] > strongThreshold * p.idf) strong[i] = 1;
        if (!q.unigram || p.weights[k] >= 0.99 * keywordWeight * p.idf) solid[i] = 1;
        // A keyword phrase met whole (`pava electrica`): its words count as keywords of the row.
        if (!q.unigram && p.weights[k] >= 0.99 * keywordWeight * p.idf) {
          for (const w of q.term.split('_')) {
            const inQuery = unigramWeight.get(w);
            const wp = index.postings.get(w);
            if (inQuery && wp) scores[i] += Math.min(inQuery, q.weight) * (keywordWeight - (index.rowTerms[i].get(w) ?? 0)) * wp.idf;
          }
        }
      }
    }
    if (attrs) for (const i of touched) scores[i] *= attributeFactor(attrs, rowAttributes[i]);
    // What the description is, above a word it shares with a row's wording: when a word of the
    // description is a keyword of some row (`frasco`), a row met only through words of its legal
    // description (`farmacia` of the rubber row's "artículos de higiene o de farmacia") that does not
    // explain that word either keeps `wordingOnlyFactor` of its score.
    const named = terms.filter((q) => q.unigram && index.namingWords.has(q.term)).map((q) => q.term);
    const keyed = (i: number) => named.some((w) => index.rowKeywords[i].has(w));
    if (named.length && touched.some(keyed))
      for (const i of touched) if (!keyed(i) && !named.some((w) => index.rowTerms[i].has(w))) scores[i] *= wordingOnlyFactor;
    const order = touched.filter((i) => scores[i] > 0).sort((a, b) => scores[b] - scores[a] || a - b);
    return { order, total };
  }

  function answer(i: number, confidence: number, source: ClassificationSource, reason: string): Classification {
    const row = rows[i];
    return { ncm_code: row.ncm, duty_rate: row.duty_rate, confidence, source, reason, description: row.description, duty_source: row.duty_source ?? importedDutySource(null) };
  }

  function fallback(reason: string): Classification {
    return answer(fallbackIndex, fallbackConfidence, 'offline', reason);
  }

  function partner(input: ClassifyInput, query?: Query): PartnerCheck {
    const given = input.hsCode?.trim();
    if (!given) return {};
    const digits = ncmDigits(given);
    if (digits.length < 6) return { note: `Partner hsCode '${given}' is not an HS code (fewer than 6 digits); classified from the description.` };
    const exact = digits.length >= 8 ? byDigits.get(digits.slice(0, 8)) : undefined;
    if (exact !== undefined) return { classification: answer(exact, 1, 'partner', `Partner hsCode ${given} is NCM ${rows[exact].ncm} of the tariff table.`) };
    const hs6 = digits.slice(0, 6);
    const under = rows.map((r, i) => (ncmDigits(r.ncm).startsWith(hs6) ? i : -1)).filter((i) => i >= 0);
    const hs6Text = `${hs6.slice(0, 4)}.${hs6.slice(4)}`;
    if (!under.length) return { note: `Partner hsCode ${given} has no row in the tariff table (nothing under HS ${hs6Text}); classified from the description.` };
    const allowed = new Set(under);
    const q = query ?? readQuery(input);
    const { order } = rank(q.terms, (i) => allowed.has(i), q.attrs);
    const best = order[0] ?? under[0];
    const how = under.length === 1 ? 'the only NCM' : order.length ? 'the best NCM for the description' : 'the first NCM';
    return {
      classification: answer(best, partnerHs6Confidence, 'partner', `Partner hsCode ${given} kept at HS ${hs6Text}; ${rows[best].ncm} is ${how} under it.`),
    };
  }

  /** The table's best rows and the query's total weight (no partner code, no HS tier). */
  function best(q: Query): { order: number[]; total: number } {
    return rank(q.terms, undefined, q.attrs);
  }

  function explainedByRow(i: number, word: string): boolean {
    return explanation(i, word, new Set()) > 0;
  }

  /**
   * How well row `i` explains a word of the description, 0 to 1: fully as a one-word keyword or inside
   * a phrase of the row the description meets whole (`wholeWords`), else as much as the row weighs it
   * (a word of its description 0.5, a word of a longer keyword 0.4, a brand 0.35).
   */
  function explanation(i: number, word: string, wholeWords: ReadonlySet<string>): number {
    const known = index.postings.has(word) ? word : fuzzy(word);
    if (known === undefined) return 0;
    const w = index.rowTerms[i].get(known) ?? 0;
    return w > 0 && wholeWords.has(known) ? 1 : w;
  }

  /** The words of the phrases of row `i` that the query meets whole. */
  function wholePhraseWords(i: number, terms: readonly QueryTerm[]): Set<string> {
    const out = new Set<string>();
    for (const q of terms) if (!q.unigram && index.rowTerms[i].has(q.term)) for (const w of q.term.split('_')) out.add(w);
    return out;
  }

  function hsCouldHelp(input: ClassifyInput): boolean {
    const q = readQuery(input);
    if (partner(input, q).classification) return false;
    // A declared NCM the table lacks: the tier says whether it is a valid code, to keep against a weak answer.
    if (ncmDigits(input.hsCode ?? '').length >= 8) return true;
    const { order } = best(q);
    if (!order.length) return true;
    return q.toks.some((t) => !explainedByRow(order[0], t.term));
  }

  /** The HS tier's answer when it explains more of the description than the table's best row. */
  function hsAnswer(q: Query, hs: HsIndex, top: number | undefined, note: string, siblings: readonly number[] = []): { answer?: Classification; tableShare: number } {
    const { toks, attrs, terms: qTerms } = q;
    const words = toks.map((t) => t.term);
    const m: HsMatch | undefined = hs.match(words, attrs);
    // Each word counts as much as it is specific in the nomenclature; a word only the table knows, as a
    // typical word; a word nobody knows, as half of one (a glossary word with no English weighs nothing).
    const weight = words.map((w, k) => {
      const base = m?.weights[k]
        ? m.weights[k]
        : index.postings.has(w) || fuzzy(w) !== undefined
          ? hsTableWordWeight
          : hs.knows(w) || /\d/.test(w)
            ? 0
            : unknownWordWeight;
      // Who wears it says nothing of what it is; a material or how it looks says less than the product's name.
      const attribute = isGenderTerm(w) ? 0 : isMaterialTerm(w) || isAppearanceTerm(w) ? materialWordShare : 1;
      return base * attribute * (toks[k].secondary ? secondaryWeight : 1);
    });
    const sum = (keep: (k: number) => boolean) => weight.reduce((s, w, k) => (keep(k) ? s + w : s), 0);
    const whole = top === undefined ? new Set<string>() : wholePhraseWords(top, qTerms);
    const siblingWhole = siblings.map((i) => [i, wholePhraseWords(i, qTerms)] as const);
    // A word a sibling row of the same heading explains (the gender or material routing chose between them) is explained by the table.
    const strength = words.map((w) =>
      top === undefined ? 0 : Math.max(explanation(top, w, whole), ...siblingWhole.map(([i, sw]) => explanation(i, w, sw))),
    );
    const byTable = weight.reduce((s, w, k) => s + w * strength[k], 0);
    const total = Math.max(1e-9, sum(() => true));
    const tableShare = byTable / total;
    if (!m) return { tableShare };
    const byHs = sum((k) => m.explained[k]);
    if (top !== undefined && ncmDigits(rows[top].ncm).startsWith(m.hs6)) return { tableShare: Math.max(tableShare, byHs / total) };
    // A phrase met whole (`motor oil`, `chain saw`) says more than its words met apart.
    const tablePhrases = top === undefined ? 0 : qTerms.filter((q) => !q.unigram && index.rowTerms[top].has(q.term)).length;
    const hsPhrases = m.matched.filter((t) => t.includes(' ')).length;
    const phraseBonus = hsPhraseWeight * (Math.min(2, hsPhrases) - Math.min(2, tablePhrases));
    if (byHs + phraseBonus <= byTable + hsLead) return { tableShare };
    const share = byHs / total;
    const margin = m.score > 0 ? (m.score - m.runnerUp) / m.score : 0;
    const raw = 0.3 + 0.3 * share + 0.25 * margin;
    const hsText = `${m.hs6.slice(0, 4)}.${m.hs6.slice(4)}`;
    const why = `HS fallback: matched ${m.matched.slice(0, 6).join(', ')} in HS ${hsText} (${m.description.slice(0, 120)})`;
    const under = rows.map((r, i) => (ncmDigits(r.ncm).startsWith(m.hs6) ? i : -1)).filter((i) => i >= 0);
    if (under.length) {
      const allowed = new Set(under);
      const { order } = rank(qTerms, (i) => allowed.has(i), attrs);
      const row = order[0] ?? under[0];
      const confidence = round2(Math.min(hsCompletedCap, raw));
      return { tableShare, answer: answer(row, confidence, 'hs-fallback', `${why}; NCM ${rows[row].ncm} of the tariff table under it.${note}`) };
    }
    const { duty, basis } = estimatedDuty(m.hs6);
    const onlyHs: Classification = {
      ncm_code: hsText,
      duty_rate: duty,
      confidence: round2(Math.min(hsOnlyCap, raw)),
      source: 'hs-fallback',
      reason: `${why}; the tariff table has no NCM under it: duty estimated at ${duty}%, to be confirmed in document review.${note}`,
      description: m.description,
      duty_source: {
        status: 'unverified',
        source: 'estimate',
        note: `HS ${hsText} has no row in the tariff table: ${duty}% is ${basis}, an upper estimate until a broker confirms the NCM`,
      },
    };
    return { tableShare, answer: onlyHs };
  }

  /** The duty of a code the table has no row for: the highest rate of the table's rows in its chapter, else the ceiling. */
  function estimatedDuty(digits: string): { duty: number; basis: string } {
    const chapter = digits.slice(0, 2);
    const inChapter = rows.filter((r) => r.ncm.startsWith(chapter)).map((r) => r.duty_rate);
    return inChapter.length
      ? { duty: Math.max(...inChapter), basis: `the highest rate of the table's rows in chapter ${chapter}` }
      : { duty: maxDutyRate, basis: `the common external tariff's ceiling (the table has no row in chapter ${chapter})` };
  }

  /**
   * A partner's declared NCM (8 digits or more) whose HS subheading is one of the nomenclature's, but
   * which the table does not have, against the description's answer: an answer that is always
   * reviewed (an HS-only code, the fallback row, anything at or below `hsOnlyCap`) never replaces it.
   * The declared code is kept (its duty estimated, to be reviewed); when the answer is another
   * subheading, both codes and their reasons go to review (`candidates`).
   */
  function keepDeclared(input: ClassifyInput, found: Classification, hs: HsIndex): Classification {
    const given = input.hsCode?.trim();
    const digits = ncmDigits(given ?? '');
    if (!given || digits.length < 8 || found.confidence > hsOnlyCap) return found;
    const sub = hs.subheading(digits.slice(0, 6));
    if (!sub) return found;
    const code = `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6, 8)}`;
    const hsText = `${digits.slice(0, 4)}.${digits.slice(4, 6)}`;
    const { duty, basis } = estimatedDuty(digits);
    const agrees = ncmDigits(found.ncm_code).startsWith(digits.slice(0, 6));
    const kept = `Partner hsCode ${given} kept as NCM ${code}: HS ${hsText} (${sub.description.slice(0, 120)}) is a subheading of the HS nomenclature, the tariff table has no row for it: duty estimated at ${duty}%`;
    const base: Classification = {
      ncm_code: code,
      duty_rate: duty,
      confidence: agrees ? declaredAgreedConfidence : declaredDisputedConfidence,
      source: 'partner',
      reason: '',
      description: sub.description,
      duty_source: {
        status: 'unverified',
        source: 'estimate',
        note: `NCM ${code} (declared) has no row in the tariff table: ${duty}% is ${basis}, an upper estimate until a broker confirms the NCM`,
      },
    };
    if (agrees) return { ...base, reason: `${kept}; the description matches the same subheading, to be confirmed in document review.` };
    const reason = `${kept}. The classifier suggests ${found.ncm_code} instead (${found.source}, confidence ${found.confidence}), an answer that is always reviewed and never replaces a valid declared NCM: both to be confirmed in document review.`;
    return {
      ...base,
      reason,
      candidates: [
        { ncm_code: code, source: 'partner', confidence: base.confidence, reason: `${kept}.` },
        { ncm_code: found.ncm_code, source: found.source, confidence: found.confidence, reason: found.reason.replace(/ Partner hsCode .*$/, '') },
      ],
    };
  }

  function classify(input: ClassifyInput, hs?: HsIndex): Classification {
    vocabulary = hs;
    try {
      const found = classifyWith(input, hs);
      return hs && found.source !== 'partner' ? keepDeclared(input, found, hs) : found;
    } finally {
      vocabulary = undefined;
    }
  }

  function classifyWith(input: ClassifyInput, hs?: HsIndex): Classification {
    const q = readQuery(input);
    const checked = partner(input, q);
    if (checked.classification) return checked.classification;
    const note = checked.note ? ` ${checked.note}` : '';
    const { terms } = q;
    const { order, total } = best(q);
    const siblings = order.length ? order.slice(1, 6).filter((i) => rows[i].ncm.slice(0, 4) === rows[order[0]].ncm.slice(0, 4)) : [];
    const fromHs = hs ? hsAnswer(q, hs, order[0], note, siblings) : undefined;
    if (fromHs?.answer) return fromHs.answer;
    if (!order.length) return fallback(`No tariff row matches the description; fallback ${rows[fallbackIndex].ncm}, to be reviewed.${note}`);

    const top = order[0];
    const s1 = scores[top];
    const s2 = order.length > 1 ? scores[order[1]] : 0;
    const heading = rows[top].ncm.slice(0, 4);
    const otherHeading = order.find((i) => rows[i].ncm.slice(0, 4) !== heading);
    const s3 = otherHeading === undefined ? 0 : scores[otherHeading];
    const coverage = total > 0 ? Math.min(1, covered[top] / total) : 0;
    const margin = 0.5 * ((s1 - s2) / s1) + 0.5 * ((s1 - s3) / s1);
    let confidence = 0.3 + 0.35 * coverage + 0.3 * margin;
    if (!strong[top]) confidence = Math.min(confidence, 0.55);
    if (!solid[top]) confidence = Math.min(confidence, partialOnlyCap);
    // A row found only through a typo-corrected word is less sure than one the words name.
    const exact = terms.some((q) => q.unigram && q.exact && index.rowTerms[top].has(q.term));
    if (!exact) confidence = Math.min(confidence, typoOnlyCap);
    // Words the nomenclature knows and the row does not explain (not brands: the HS tier knows no brand) lower it.
    if (fromHs) confidence = Math.min(confidence, 0.35 + 0.6 * fromHs.tableShare);
    confidence = round2(Math.min(0.95, Math.max(0.3, confidence)));

    const matched = terms
      .filter((q) => index.rowTerms[top].has(q.term))
      .map((q) => q.term.replaceAll('_', ' '))
      .slice(0, 6);
    const next = order.length > 1 ? `; next ${rows[order[1]].ncm} at ${s2.toFixed(1)}` : '';
    return answer(top, confidence, 'offline', `Matched ${matched.join(', ')} (score ${s1.toFixed(1)}${next}).${note}`);
  }

  function candidates(input: ClassifyInput, n: number): Candidate[] {
    const { order } = best(readQuery(input));
    return order.slice(0, Math.max(0, n)).map((i) => ({ row: rows[i], score: Math.round(scores[i] * 1000) / 1000 }));
  }

  return { rows, classify, hsCouldHelp, candidates, partner, fallback };
}
