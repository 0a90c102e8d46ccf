import { ncmDigits, type TariffRow } from './table';
import type { HsIndex } from './hs-fallback';
import { isFinishTerm, wordingAttributes, type Attributes } from './attributes';
import { gram, maxGram, tokens } from './text';

/**
 * The tariff table as the classifier reads it (classifier.ts): every row indexed once, an inverted
 * index from normalized terms to weighted rows (keywords weigh more than words of a row's
 * description, phrases more than their words, `~` hints less), the typo index built from the
 * keywords' words at the first unknown word, and the scratch buffers one query at a time scores into.
 */

export const keywordWeight = 1;
/** A phrase of three or more words: its inner bigrams. */
const subPhraseWeight = 0.5;
/** A phrase's single words: they match, but less than a one-word keyword. */
const phraseWordWeight = 0.4;
const weakWeight = 0.35;
const descriptionWeight = 0.5;
export const categoryWeight = 0.6;
/** A row met only through words of its description, when a word of the description names a kind of product it does not explain. */
export const wordingOnlyFactor = 0.5;
/** A two-word phrase met with one word between its words. */
export const skipPhraseWeight = 0.5;
export const fuzzyWeight = 0.7;
/** A row matched only through weights at or below this matched on weak hints (brands) alone. */
export const strongThreshold = weakWeight + 0.01;

export interface Posting {
  rows: Int32Array;
  weights: Float64Array;
  idf: number;
}

export interface Index {
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

/** A tariff table indexed for classification, with the buffers and state of the query in progress. */
export interface IndexedTable {
  /** The table's rows in NCM order (ties of a ranking go to the lower NCM). */
  readonly rows: readonly TariffRow[];
  readonly index: Index;
  /** Row by NCM digits. */
  readonly byDigits: Map<string, number>;
  /** The row answered when nothing matches. */
  readonly fallbackIndex: number;
  /** What each row's own wording states: gender (garments of chapters 61 and 62), ranges, materials. */
  readonly rowAttributes: Attributes[];
  // Scratch buffers reused by every query: classification is synchronous, so one query at a time.
  readonly scores: Float64Array;
  readonly covered: Float64Array;
  readonly strong: Uint8Array;
  /** Met a one-word keyword or a phrase (not only a phrase's words or the description's). */
  readonly solid: Uint8Array;
  /** The rows the query in progress scored. */
  readonly touched: number[];
  /** During `classify` with the HS tier: a word the nomenclature knows as written is no typo. */
  vocabulary: HsIndex | undefined;
  /** Built at the first unknown word: a clean description never pays for it. */
  typos: Map<string, string> | undefined;
}

/** "Other articles of plastics": the commonest catch-all of small parcels. */
export const defaultFallbackNcm = '3926.90.90';

/** The table sorted by NCM and indexed; `fallbackNcm` is answered when nothing matches (if the table lacks it, its first row). */
export function indexTable(table: readonly TariffRow[], fallbackNcm: string): IndexedTable {
  const rows = [...table].sort((a, b) => (a.ncm < b.ncm ? -1 : a.ncm > b.ncm ? 1 : 0));
  const byDigits = new Map(rows.map((r, i) => [ncmDigits(r.ncm), i]));
  return {
    rows,
    index: buildIndex(rows),
    byDigits,
    fallbackIndex: byDigits.get(ncmDigits(fallbackNcm)) ?? 0,
    rowAttributes: rows.map((r) => wordingAttributes(r.ncm, `${r.description} ${r.description_en ?? ''}`, { materials: true })),
    scores: new Float64Array(rows.length),
    covered: new Float64Array(rows.length),
    strong: new Uint8Array(rows.length),
    solid: new Uint8Array(rows.length),
    touched: [],
    vocabulary: undefined,
    typos: undefined,
  };
}

/** A word the index does not know, matched to a keyword word one edit away (typos: `zapatilas`); none for words the nomenclature knows. */
export function fuzzy(tab: IndexedTable, term: string): string | undefined {
  if (term.length < 5 || /\d/.test(term) || tab.vocabulary?.knows(term)) return undefined;
  tab.typos ??= buildTypoIndex(tab.index.keywordWords);
  for (const d of deletionsOf(term)) {
    const hit = tab.typos.get(d);
    if (hit) return hit;
  }
  return undefined;
}
