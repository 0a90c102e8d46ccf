import { ncmDigits, type TariffRow } from './table';
import { stem } from './text';

/**
 * The broker's NCM picker (issue 40, item 4): the nomenclature searched by words, Spanish or English,
 * or by a code prefix. Not the classifier (classifier.ts scores a product description against the
 * rows); this answers what a person types, a few words or the start of a code, and every word must
 * match.
 *
 * Words: lower case, accents and punctuation folded, plurals folded as the classifier folds them
 * (`relojes` and `reloj` meet); each word of the query must be the start of a word of the row's
 * Spanish or English description or of one of its keywords (`casc` finds `cascos`). A stop word
 * the query completed (`de` of `bolsos de mano`) is dropped; the last word is always a prefix.
 * Rows rank by where their words matched (description over keyword, a whole word over a prefix),
 * then by NCM.
 *
 * Codes: a query of digits and dots (`8517`, `8517.13`, `85171300`) answers the rows whose NCM
 * starts with those digits, in NCM order; a code written among words (`8517 telefonos`) narrows
 * the words' rows to those under it.
 *
 * The index (a sorted vocabulary with each word's rows) is built once per table: a prefix is a
 * binary search and a walk over the words it starts, never a scan of the rows.
 */

export const ncmSearchLimit = { default: 20, max: 50 } as const;
export const maxNcmQueryLength = 100;
/** Words read of a query; more say nothing a broker needs and cost intersections. */
export const maxQueryWords = 8;

/** A word met in a row's description (Spanish or English) weighs more than one of its keywords. */
const descriptionWeight = 3;
const keywordWeight = 2;
/** A word met whole over a word the query only starts. */
const prefixFactor = 0.75;

/** Completed words that say nothing on their own (kept when they are all the query or its last, unfinished word). */
const stopWords = new Set(
  'a al con de del el en la las lo los o para por sin su sus un una y e u the of and or for with in on to an'.split(' '),
);

/** Words a description may open with that name nothing (`Los demás ...`, `Partes de ...`). */
const vagueWords = new Set('demas otros otras otro otra partes parte other parts'.split(' '));
/** A row whose description opens with a word of the query (`Relojes de pulsera` for `reloj`) ranks above one that names it later. */
const headBonus = 0.5;

export interface NcmSearchIndex {
  /** The rows in NCM order. */
  readonly rows: readonly TariffRow[];
  /** Per row, its NCM's 8 digits, ascending. */
  readonly digits: readonly string[];
  /** Every folded word of the rows, sorted. */
  readonly vocabulary: readonly string[];
  /** Per word of `vocabulary` (same position): the rows that carry it and the weight each carries it with. */
  readonly postings: readonly { rows: Int32Array; weights: Float32Array }[];
  /** Per row, the first word of its Spanish description that names something (`relojes` of "Relojes de pulsera"; not `los demás`). */
  readonly heads: readonly string[];
}

/** Lower case, accents and punctuation removed: the words of a text, in order. */
export function foldWords(text: string): string[] {
  const lower = text.toLowerCase();
  const plain = /[^\x00-\x7f]/.test(lower) ? lower.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : lower;
  return plain.split(/[^a-z0-9]+/).filter(Boolean);
}

/** The index of a table: built once per table (a cold start, or a new import), read by every search. */
export function indexNomenclature(table: readonly TariffRow[]): NcmSearchIndex {
  const rows = [...table].sort((a, b) => (a.ncm < b.ncm ? -1 : a.ncm > b.ncm ? 1 : 0));
  // Rows are read in order, so each word's rows are pushed ascending: no sort, no set per word.
  const byWord = new Map<string, { rows: number[]; weights: number[] }>();
  const stems = new Map<string, string>();
  const stemOf = (w: string) => {
    let s = stems.get(w);
    if (s === undefined) stems.set(w, (s = stem(w)));
    return s;
  };
  const mine = new Map<string, number>();
  rows.forEach((row, i) => {
    mine.clear();
    // Each word as written and folded (`baterias` and `bateria`): a prefix meets either.
    const put = (w: string, weight: number) => {
      for (const form of [w, stemOf(w)]) if ((mine.get(form) ?? 0) < weight) mine.set(form, weight);
    };
    for (const text of [row.description, row.description_en ?? '']) for (const w of foldWords(text)) put(w, descriptionWeight);
    for (const k of row.keywords ?? []) for (const w of foldWords(k.startsWith('~') ? k.slice(1) : k)) put(w, keywordWeight);
    for (const [w, weight] of mine) {
      let p = byWord.get(w);
      if (!p) byWord.set(w, (p = { rows: [], weights: [] }));
      p.rows.push(i);
      p.weights.push(weight);
    }
  });
  const vocabulary = [...byWord.keys()].sort();
  const postings = vocabulary.map((w) => {
    const p = byWord.get(w)!;
    return { rows: Int32Array.from(p.rows), weights: Float32Array.from(p.weights) };
  });
  const heads = rows.map((r) => stemOf(foldWords(r.description).find((w) => !stopWords.has(w) && !vagueWords.has(w)) ?? ''));
  return { rows, digits: rows.map((r) => ncmDigits(r.ncm)), vocabulary, postings, heads };
}

/** What a query is: a code prefix (its digits) or words, which a code written among them narrows (`8517 telefono`). */
export type NcmQuery = { kind: 'code'; digits: string } | { kind: 'words'; words: string[]; digits?: string };

/** A query of digits, dots and spaces is a code prefix (1 to 8 digits); anything else is words. */
export function readNcmQuery(q: string): NcmQuery {
  const text = q.trim();
  if (/^[\d.\s]+$/.test(text) && /\d/.test(text)) return { kind: 'code', digits: text.replace(/\D/g, '') };
  // A code among the words (`8517 telefono`, `telefono 8517.13`): its digits narrow the rows.
  const code = text.split(/\s+/).find((w) => /^\d[\d.]*$/.test(w));
  const all = foldWords(code ? text.replace(code, ' ') : text);
  const words = all.filter((w, k) => k === all.length - 1 || !stopWords.has(w));
  return { kind: 'words', words: [...new Set(words)].slice(0, maxQueryWords), ...(code ? { digits: code.replace(/\D/g, '') } : {}) };
}

export interface NcmHit {
  row: TariffRow;
  /** Words: how well the row matched (higher first); a code prefix: 1. */
  score: number;
}

export interface NcmSearchResult {
  query: NcmQuery;
  hits: NcmHit[];
  /** How many rows matched in all (the hits are the first `limit`). */
  total: number;
}

/** The first row at or after `key` in a sorted array. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rows one word of the query meets (as a word of theirs or its start), with the best weight each meets it with. */
function rowsOfWord(index: NcmSearchIndex, word: string): Map<number, number> {
  const out = new Map<number, number>();
  const folded = stem(word);
  for (const form of folded === word ? [word] : [word, folded]) meet(index, form, out);
  return out;
}

function meet(index: NcmSearchIndex, word: string, out: Map<number, number>): void {
  for (let k = lowerBound(index.vocabulary, word); k < index.vocabulary.length && index.vocabulary[k].startsWith(word); k++) {
    const factor = index.vocabulary[k] === word ? 1 : prefixFactor;
    const p = index.postings[k];
    for (let j = 0; j < p.rows.length; j++) {
      const w = p.weights[j] * factor;
      const i = p.rows[j];
      if ((out.get(i) ?? 0) < w) out.set(i, w);
    }
  }
}

/** Searches the nomenclature; `limit` is clamped to 1..50. A query that folds to nothing finds nothing. */
export function searchNcm(index: NcmSearchIndex, q: string, limit: number = ncmSearchLimit.default): NcmSearchResult {
  const n = Math.max(1, Math.min(ncmSearchLimit.max, Math.floor(limit) || ncmSearchLimit.default));
  const query = readNcmQuery(q);
  if (query.kind === 'code') {
    if (!query.digits.length || query.digits.length > 8) return { query, hits: [], total: 0 };
    const from = lowerBound(index.digits, query.digits);
    let to = from;
    while (to < index.digits.length && index.digits[to].startsWith(query.digits)) to++;
    return { query, hits: index.rows.slice(from, Math.min(to, from + n)).map((row) => ({ row, score: 1 })), total: to - from };
  }
  if (!query.words.length || (query.digits && query.digits.length > 8)) return { query, hits: [], total: 0 };
  const sets = query.words.map((w) => rowsOfWord(index, w)).sort((a, b) => a.size - b.size);
  const [first, ...rest] = sets;
  const found: NcmHit[] = [];
  for (const [i, w] of first) {
    let score = w;
    let all = true;
    for (const s of rest) {
      const x = s.get(i);
      if (x === undefined) {
        all = false;
        break;
      }
      score += x;
    }
    if (!all || (query.digits && !index.digits[i].startsWith(query.digits))) continue;
    const head = index.heads[i];
    if (head && query.words.some((w) => head.startsWith(w) || head.startsWith(stem(w)))) score += headBonus;
    found.push({ row: index.rows[i], score: Math.round(score * 100) / 100 });
  }
  found.sort((a, b) => b.score - a.score || (a.row.ncm < b.row.ncm ? -1 : a.row.ncm > b.row.ncm ? 1 : 0));
  return { query, hits: found.slice(0, n), total: found.length };
}
