import { attributeFactor, type Attributes } from './attributes';
import { keywordWeight, strongThreshold, wordingOnlyFactor, type IndexedTable } from './table-index';
import type { Query, QueryTerm } from './query';

/**
 * The candidate search: the rows sharing a term with the query, scored by summed idf-weighted term
 * weights (a keyword phrase met whole counts its words as keywords; the description's attributes
 * weigh each row; a row met only through its legal wording yields to one whose keyword names the
 * product), best first, ties to the lower NCM. The scores stay in the table's scratch buffers.
 */

/** Scores every row sharing a term with the query; returns the touched rows, best first. */
export function rank(tab: IndexedTable, terms: QueryTerm[], only?: (i: number) => boolean, attrs?: Attributes): { order: number[]; total: number } {
  for (const i of tab.touched) {
    tab.scores[i] = 0;
    tab.covered[i] = 0;
    tab.strong[i] = 0;
    tab.solid[i] = 0;
  }
  tab.touched.length = 0;
  let total = 0;
  const unigramWeight = new Map<string, number>();
  for (const q of terms) if (q.unigram) unigramWeight.set(q.term, q.weight);
  for (const q of terms) {
    const p = tab.index.postings.get(q.term)!;
    if (q.unigram) total += q.weight * p.idf;
    for (let k = 0; k < p.rows.length; k++) {
      const i = p.rows[k];
      if (only && !only(i)) continue;
      if (tab.scores[i] === 0 && tab.covered[i] === 0) tab.touched.push(i);
      tab.scores[i] += q.weight * p.weights[k];
      if (q.unigram) tab.covered[i] += q.weight * p.idf;
      if (p.weights[k] > strongThreshold * p.idf) tab.strong[i] = 1;
      if (!q.unigram || p.weights[k] >= 0.99 * keywordWeight * p.idf) tab.solid[i] = 1;
      // A keyword phrase met whole (`pava electrica`): its words count as keywords of the row.
      if (!q.unigram && p.weights[k] >= 0.99 * keywordWeight * p.idf) {
        for (const w of q.term.split('_')) {
          const inQuery = unigramWeight.get(w);
          const wp = tab.index.postings.get(w);
          if (inQuery && wp) tab.scores[i] += Math.min(inQuery, q.weight) * (keywordWeight - (tab.index.rowTerms[i].get(w) ?? 0)) * wp.idf;
        }
      }
    }
  }
  if (attrs) for (const i of tab.touched) tab.scores[i] *= attributeFactor(attrs, tab.rowAttributes[i]);
  // What the description is, above a word it shares with a row's wording: when a word of the
  // description is a keyword of some row (`frasco`), a row met only through words of its legal
  // description (`farmacia` of the rubber row's "artículos de higiene o de farmacia") that does not
  // explain that word either keeps `wordingOnlyFactor` of its score.
  const named = terms.filter((q) => q.unigram && tab.index.namingWords.has(q.term)).map((q) => q.term);
  const keyed = (i: number) => named.some((w) => tab.index.rowKeywords[i].has(w));
  if (named.length && tab.touched.some(keyed))
    for (const i of tab.touched) if (!keyed(i) && !named.some((w) => tab.index.rowTerms[i].has(w))) tab.scores[i] *= wordingOnlyFactor;
  const order = tab.touched.filter((i) => tab.scores[i] > 0).sort((a, b) => tab.scores[b] - tab.scores[a] || a - b);
  return { order, total };
}

/** The table's best rows and the query's total weight (no partner code, no HS tier). */
export function best(tab: IndexedTable, q: Query): { order: number[]; total: number } {
  return rank(tab, q.terms, undefined, q.attrs);
}
