import { normalizeText } from './text';
import { hsCompounds, hsGlossary, hsSynonyms } from './hs-glossary';
import { attributeFactor, wordingAttributes, type Attributes } from './attributes';

/**
 * The HS fallback tier (issue 21, item 2): retrieval over the whole Harmonized System nomenclature
 * (6-digit subheadings with their English descriptions, the data file
 * infra/tariff/hs-nomenclature.json, handed in by the classifier's port), for descriptions the
 * built-in or imported tariff table does not explain. Spanish words are read through a bilingual
 * glossary (hs-glossary.ts), and a few commercial names the nomenclature's legal wording never
 * uses (`ramen`, `tequila`) are attached to their subheading as synonyms.
 *
 * Each subheading is indexed with its own description (weight 1), the description of its heading
 * (0.5, context: `olive oil` is in heading 1509's words) and its synonyms (1.2); adjacent words form
 * two-word phrases, so `olive oil` outweighs `oil`. Scores are idf-weighted; ties go to the
 * subheading with the shorter description (the one that says least beyond the query), then the
 * lower code. The same input always gives the same answer.
 */

export interface HsSubheading {
  /** Six digits, `150920`. */
  code: string;
  description: string;
}

export interface HsMatch {
  /** Six digits. */
  hs6: string;
  description: string;
  score: number;
  /** The runner-up subheading's score (0 when none). */
  runnerUp: number;
  /** Per query term (as `normalizeText` gives them): whether the chosen subheading explains it. */
  explained: boolean[];
  /** Per query term: whether the nomenclature (or the glossary) knows the word at all. */
  known: boolean[];
  /** Per query term: how specific the word is in the nomenclature (the highest idf of its English words; 0 unknown). */
  weights: number[];
  /** Words of the subheading that matched, for the reason. */
  matched: string[];
}

export interface HsIndex {
  readonly size: number;
  subheading(hs6: string): HsSubheading | undefined;
  /**
   * The best subheading for these normalized query terms, or undefined when none shares a word. With
   * `attributes` (the description's gender and figures), a subheading whose wording disagrees loses part of its score.
   */
  match(terms: readonly string[], attributes?: Attributes): HsMatch | undefined;
  /** Whether the nomenclature (or the glossary) knows this normalized word as written: then it is no typo. */
  knows(term: string): boolean;
}

const ownWeight = 1;
const headingWeight = 0.5;
const synonymWeight = 1.2;

/** Words of the nomenclature's legal wording that name no kind of goods. */
const hsStopWords = new Set(
  'nec mg kg ml lt cc gr oz lb heading headings item items chapter subheading subheadings whether not excluding including exceeding weight weighing kind used put up form forms containing thereof but than other others such having being mixed unmixed purposes'.split(
    ' ',
  ),
);

const gram = (a: string, b: string) => `${a}_${b}`;

/**
 * Spanish-English cognate endings, for a Spanish word the glossary does not list: `construccion` ->
 * `construction`, `insulina` -> `insulin`, `detergente` -> `detergent`, `hidraulico` -> `hydraulic`.
 * Only a form the nomenclature uses is kept, so a made-up English word never matches.
 */
const cognateEndings: readonly [RegExp, string[]][] = [
  [/cion$/, ['tion']],
  [/sion$/, ['sion', 'ssion']],
  [/ica?$/, ['ic', 'ical']],
  [/ina$/, ['in', 'ine']],
  [/eno$/, ['ene', 'en']],
  [/encia$/, ['ence']],
  [/ancia$/, ['ance']],
  [/ente$/, ['ent']],
  [/ante$/, ['ant']],
  [/[ae]dor$/, ['ator', 'er']],
  [/iva?$/, ['ive']],
  [/aria?$/, ['ary']],
  [/ura$/, ['ure']],
  [/os[oa]$/, ['ous', 'ose']],
  [/dad$/, ['ty']],
  [/ato$/, ['ate']],
  [/ismo$/, ['ism']],
  [/ista$/, ['ist']],
  [/mento$/, ['ment']],
  [/ia$/, ['y']],
];

/** English spellings a Spanish word may have (not checked against anything). */
export function cognateForms(term: string): string[] {
  if (term.length < 5 || /\d/.test(term)) return [];
  const bases = [term];
  if (term.startsWith('hidr')) bases.push(`hydr${term.slice(4)}`);
  if (/^es[bcdfgklmnpqtv]/.test(term)) bases.push(term.slice(1));
  const out: string[] = [];
  for (const base of bases) {
    for (const [ending, english] of cognateEndings) if (ending.test(base)) for (const e of english) out.push(base.replace(ending, e));
    if (base.length >= 6 && /[bcdfgklmnpqrstvz][oae]$/.test(base)) out.push(base.slice(0, -1));
  }
  return out;
}

interface Doc {
  code: string;
  description: string;
  terms: Map<string, number>;
  length: number;
  /** Gender (garments of chapters 61 and 62) and ranges its wording states; materials are matched as words. */
  attributes: Attributes;
}

function docTerms(text: string): string[] {
  return normalizeText(text).filter((t) => !hsStopWords.has(t) && !/\d/.test(t));
}

/** A commercial name's words: as a description's, digits kept (`3d printer`). */
function synonymTerms(text: string): string[] {
  return normalizeText(text).filter((t) => !hsStopWords.has(t));
}

/**
 * The nomenclature's words for what a subheading is, without what it is not: `other than crude`,
 * `(excluding ...)`, `not containing added sugar`, `neither crushed nor ground` name other goods.
 */
export function positiveText(description: string): string {
  return description
    .replace(/\((?:excluding|other than|not|but not)[^)]*\)/gi, ' ')
    .replace(/\b(?:other than|excluding|except|not|neither|nor|n\.e\.c\.)\b[^,;:()]*/gi, ' ');
}

/** Parses `code<TAB>description` lines (4-digit headings and 6-digit subheadings). */
export function parseNomenclature(text: string): { headings: Map<string, string>; subheadings: HsSubheading[] } {
  const headings = new Map<string, string>();
  const subheadings: HsSubheading[] = [];
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const code = line.slice(0, tab);
    const description = line.slice(tab + 1);
    if (/^\d{4}$/.test(code)) headings.set(code, description);
    else if (/^\d{6}$/.test(code)) subheadings.push({ code, description });
  }
  return { headings, subheadings };
}

/** The nomenclature indexed: each subheading a document, with its heading's words, its own and its synonyms'. */
interface HsCorpus {
  docs: Doc[];
  byCode: Map<string, HsSubheading>;
  postings: Map<string, { docs: number[]; weights: number[] }>;
  idf: Map<string, number>;
  /** Words of the commercial names (hs-glossary.ts `hsSynonyms`). */
  synonymWords: Set<string>;
  /** Scratch scores of the query in progress (matching is synchronous: one query at a time). */
  scores: Float64Array;
}

/** Indexes the nomenclature text with its synonyms. */
function hsCorpus(text: string, synonyms: Readonly<Record<string, string>>): HsCorpus {
  const { headings, subheadings } = parseNomenclature(text);
  const byCode = new Map(subheadings.map((s) => [s.code, s]));
  /** Words and two-word phrases of a text, each once. */
  const withPhrases = (words: string[]): string[] => {
    const out = new Set(words);
    for (let k = 1; k < words.length; k++) if (words[k - 1] !== words[k]) out.add(gram(words[k - 1], words[k]));
    return [...out];
  };
  const headingTerms = new Map<string, string[]>();
  for (const [code, description] of headings) headingTerms.set(code, withPhrases(docTerms(positiveText(description))));
  const docs: Doc[] = subheadings.map((s) => {
    const terms = new Map<string, number>();
    const own = docTerms(positiveText(s.description));
    for (const t of headingTerms.get(s.code.slice(0, 4)) ?? []) terms.set(t, headingWeight);
    for (const t of withPhrases(own)) terms.set(t, ownWeight);
    for (const phrase of (synonyms[s.code] ?? '').split(';')) if (phrase.trim()) for (const t of withPhrases(synonymTerms(phrase))) terms.set(t, synonymWeight);
    return { code: s.code, description: s.description, terms, length: own.length, attributes: wordingAttributes(s.code, s.description) };
  });

  const synonymWords = new Set(Object.values(synonyms).flatMap((names) => synonymTerms(names.replace(/;/g, ' '))));
  const postings = new Map<string, { docs: number[]; weights: number[] }>();
  docs.forEach((d, i) => {
    for (const [t, w] of d.terms) {
      let p = postings.get(t);
      if (!p) postings.set(t, (p = { docs: [], weights: [] }));
      p.docs.push(i);
      p.weights.push(w);
    }
  });
  const idf = new Map<string, number>();
  for (const [t, p] of postings) idf.set(t, Math.log(1 + docs.length / p.docs.length));
  return { docs, byCode, postings, idf, synonymWords, scores: new Float64Array(docs.length) };
}

/** How a query word reads in the nomenclature (the glossary's English, a cognate, or itself), cached per word. */
function translator(c: HsCorpus): (term: string) => string[] {
  /** A query word as the nomenclature writes it: the glossary's English words, or itself. */
  const translations = new Map<string, string[]>();
  /** The nomenclature's word a Spanish cognate stands for (the first form it uses), or none. */
  const cognate = (term: string): string | undefined => {
    for (const form of cognateForms(term)) {
      const [t] = docTerms(form);
      if (t && t !== term && c.postings.has(t)) return t;
    }
    return undefined;
  };
  const translate = (term: string): string[] => {
    let words = translations.get(term);
    if (!words) {
      const english = hsGlossary[term];
      const known = c.postings.has(term);
      const like = known || hsStopWords.has(term) || english === '' ? undefined : cognate(term);
      words = english !== undefined ? docTerms(english) : hsStopWords.has(term) ? [] : [term];
      // A commercial name the synonyms use as written (`drone`) keeps that meaning beside its translation
      // (not any word of the nomenclature: Spanish `collar` is a necklace, not a pallet collar).
      if (english && c.synonymWords.has(term) && !words.includes(term)) words = [...words, term];
      if (like && !words.includes(like)) words = [...words.filter((w) => w !== term), like];
      if (translations.size < 10_000) translations.set(term, words);
    }
    return words;
  };
  return translate;
}

/** The subheading that best explains a description's words (see `HsIndex.match`). */
function matchTerms(c: HsCorpus, translate: (term: string) => string[], terms: readonly string[], attributes?: Attributes): HsMatch | undefined {
  const translated = terms.map(translate);
  // A Spanish compound (`silla de ruedas`) reads as one name: its first word carries the compound's
  // English, the second nothing more.
  for (let k = 0; k + 1 < terms.length; k++) {
    const compound = hsCompounds[`${terms[k]}_${terms[k + 1]}`];
    if (compound === undefined) continue;
    translated[k] = docTerms(compound);
    translated[k + 1] = [];
    k++;
  }
  // Query groups: each word's English words (a word counts once, by its best translation), then
  // the two-word phrases across neighbouring words and inside one glossary entry.
  const groups: string[][] = translated.map((words) => words.filter((t) => c.postings.has(t)));
  const flat = translated.flat();
  const phrases = new Set<string>();
  for (let k = 1; k < flat.length; k++) if (flat[k - 1] !== flat[k]) phrases.add(gram(flat[k - 1], flat[k]));
  for (const words of translated) for (let k = 1; k < words.length; k++) if (words[k - 1] !== words[k]) phrases.add(gram(words[k - 1], words[k]));
  for (const p of phrases) if (c.postings.has(p)) groups.push([p]);
  if (!groups.some((g) => g.length)) return undefined;

  const touched: number[] = [];
  const best1 = new Map<number, number>();
  for (const group of groups) {
    best1.clear();
    for (const t of group) {
      const p = c.postings.get(t)!;
      const w = c.idf.get(t)!;
      for (let k = 0; k < p.docs.length; k++) {
        const v = w * p.weights[k];
        if ((best1.get(p.docs[k]) ?? 0) < v) best1.set(p.docs[k], v);
      }
    }
    for (const [i, v] of best1) {
      if (c.scores[i] === 0) touched.push(i);
      c.scores[i] += v;
    }
  }
  if (attributes) for (const i of touched) c.scores[i] *= attributeFactor(attributes, c.docs[i].attributes);
  const query = new Set(groups.flat());
  let best = -1;
  let bestScore = -Infinity;
  let second = 0;
  const rankOf = (i: number) => c.scores[i] - 0.001 * c.docs[i].length;
  for (const i of touched) {
    const s = rankOf(i);
    if (s > bestScore || (s === bestScore && c.docs[i].code < c.docs[best].code)) {
      if (best >= 0) second = Math.max(second, c.scores[best]);
      best = i;
      bestScore = s;
    } else second = Math.max(second, c.scores[i]);
  }
  const score = c.scores[best];
  for (const i of touched) c.scores[i] = 0;
  const doc = c.docs[best];
  const explained = translated.map((words) => words.some((t) => doc.terms.has(t)));
  const known = terms.map((t, k) => translated[k].some((w) => c.postings.has(w)) || hsGlossary[t] !== undefined);
  const weights = translated.map((words) => Math.max(0, ...words.map((w) => c.idf.get(w) ?? 0)));
  const matched = [...query].filter((t) => doc.terms.has(t)).map((t) => t.replace('_', ' '));
  return { hs6: doc.code, description: doc.description, score, runnerUp: second, explained, known, weights, matched };
}

/** Builds the tier's index from the nomenclature text (a few hundred milliseconds, once per process). */
export function createHsIndex(text: string, synonyms: Readonly<Record<string, string>> = hsSynonyms): HsIndex {
  const c = hsCorpus(text, synonyms);
  const translate = translator(c);
  const match = (terms: readonly string[], attributes?: Attributes) => matchTerms(c, translate, terms, attributes);
  const knows = (term: string): boolean => hsGlossary[term] !== undefined || translate(term).some((w) => c.postings.has(w));
  return { size: c.docs.length, subheading: (hs6) => c.byCode.get(hs6), match, knows };
}
