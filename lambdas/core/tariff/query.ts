import { genderOfTerms, materialsOfTerms, quantitiesOf, type Attributes } from './attributes';
import { gram, maxGram, secondaryWeight, tokens, withBrands, type Token } from './text';
import { categoryWeight, fuzzy, fuzzyWeight, skipPhraseWeight, type IndexedTable } from './table-index';
import type { ClassifyInput } from './types';

/**
 * A product description as the classifier reads it, once per classification: the tokens of its
 * fields (with what brand names name), the weighted query terms the index knows (words, typos
 * corrected, and phrases) and the attributes the ranking weighs (gender, figures, materials).
 */

export interface QueryTerm {
  term: string;
  weight: number;
  /** A single word (phrases add score but not coverage). */
  unigram: boolean;
  /** Written as the index knows it (not matched through a typo). */
  exact: boolean;
}

/**
 * What one classification reads of a description, read once: its fields' tokens, the query terms
 * and the attributes (the table's ranking, the HS tier and the partner check all use them).
 */
export interface Query {
  toks: Token[];
  terms: QueryTerm[];
  attrs: Attributes;
}

/** What a classification reads of its input: the tokens, the query terms and the attributes. */
export function readQuery(tab: IndexedTable, input: ClassifyInput): Query {
  const fields = fieldsOf(tab, input);
  const toks = fields.flatMap(([t]) => t);
  return { toks, terms: queryTerms(tab, fields), attrs: attributesOf(input, toks) };
}

/** Whether the table knows a brand or model name as a keyword of its own (a one-word keyword or a phrase). */
function knownName(tab: IndexedTable, name: readonly string[]): boolean {
  return name.length === 1 ? tab.index.heads.has(name[0]) : tab.index.postings.has(gram(name.slice(0, maxGram)));
}

/**
 * The tokens of a product description as the classifier reads it: with the product types its brand
 * names name, when no other word the table knows says what the product is (`Funda AirPods` is a case).
 */
function queryTokens(tab: IndexedTable, text: string): Token[] {
  const toks = withBrands(tokens(text), (name) => knownName(tab, name));
  const described = toks.some((t) => !t.secondary && !t.inferred && !t.brand && (tab.index.postings.has(t.term) || fuzzy(tab, t.term) !== undefined));
  return described ? toks.filter((t) => !t.inferred) : toks;
}

/** A description's fields as the classifier reads them, each with its tokens and its weight. */
function fieldsOf(tab: IndexedTable, input: ClassifyInput): [Token[], number][] {
  const fields: [string | undefined, number][] = [
    [input.description, 1],
    [input.name, 1],
    [input.category, categoryWeight],
  ];
  return fields.filter((f): f is [string, number] => Boolean(f[0])).map(([text, weight]) => [queryTokens(tab, text), weight]);
}

function queryTerms(tab: IndexedTable, fields: readonly [Token[], number][]): QueryTerm[] {
  const weights = new Map<string, QueryTerm>();
  const add = (term: string, weight: number, unigram: boolean, exact = true) => {
    const known = weights.get(term);
    if (!known || known.weight < weight) weights.set(term, { term, weight, unigram, exact: exact || (known?.exact ?? false) });
    else if (exact && !known.exact) known.exact = true;
  };
  for (const [fieldToks, fieldWeight] of fields) {
    const toks = fieldToks.map((t) => ({ ...t, known: tab.index.postings.has(t.term) ? t.term : t.inferred ? undefined : fuzzy(tab, t.term) }));
    // What an accessory fits or a feature it has counts less only when a word names the product itself;
    // so does what a brand name names (`Funda AirPods` is a case).
    const named = toks.some((t) => !t.secondary && !t.inferred && t.known !== undefined && tab.index.heads.has(t.known));
    toks.forEach((t, k) => {
      const lesser = t.secondary && named;
      if (t.known) add(t.known, fieldWeight * (lesser ? secondaryWeight : 1) * (t.known === t.term ? 1 : fuzzyWeight), true, t.known === t.term);
      for (let len = 2; len <= Math.min(maxGram, k + 1); len++) add(gram(toks.slice(k + 1 - len, k + 1).map((x) => x.term)), fieldWeight, false);
      // A two-word keyword with one word between (`libro [infantil] para colorear`) meets its phrase, for less.
      if (k >= 2 && !toks[k - 1].inferred && !t.inferred) add(gram([toks[k - 2].term, t.term]), fieldWeight * skipPhraseWeight, false);
    });
  }
  return [...weights.values()].filter((q) => tab.index.postings.has(q.term));
}

/** What the description says beyond the product's name: gender, figures, materials (not of what it fits). */
function attributesOf(input: ClassifyInput, toks: readonly Token[]): Attributes {
  const terms = toks.map((t) => t.term);
  const raw = [input.description, input.name].filter(Boolean).join(' ');
  return { gender: genderOfTerms(terms), quantities: quantitiesOf(raw), materials: materialsOfTerms(toks.filter((t) => !t.secondary).map((t) => t.term)) };
}
