import { fuzzy, type IndexedTable } from './table-index';
import type { QueryTerm } from './query';

/** How much of a description a row explains, word by word: the confidence and the HS tier weigh it. */
/** Whether row `i` explains a word of the description at all. */
export function explainedByRow(tab: IndexedTable, i: number, word: string): boolean {
  return explanation(tab, i, word, new Set()) > 0;
}

/**
 * How well row `i` explains a word of the description, 0 to 1: fully as a one-word keyword or inside
 * a phrase of the row the description meets whole (`wholeWords`), else as much as the row weighs it
 * (a word of its description 0.5, a word of a longer keyword 0.4, a brand 0.35).
 */
export function explanation(tab: IndexedTable, i: number, word: string, wholeWords: ReadonlySet<string>): number {
  const known = tab.index.postings.has(word) ? word : fuzzy(tab, word);
  if (known === undefined) return 0;
  const w = tab.index.rowTerms[i].get(known) ?? 0;
  return w > 0 && wholeWords.has(known) ? 1 : w;
}

/** The words of the phrases of row `i` that the query meets whole. */
export function wholePhraseWords(tab: IndexedTable, i: number, terms: readonly QueryTerm[]): Set<string> {
  const out = new Set<string>();
  for (const q of terms) if (!q.unigram && tab.index.rowTerms[i].has(q.term)) for (const w of q.term.split('_')) out.add(w);
  return out;
}
