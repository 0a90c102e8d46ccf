import { contradicts } from './attributes';
import { importedDutySource } from '../customs/tariff-rates';
import { ncmDigits } from './table';
import { readQuery, type Query } from './query';
import { best, rank } from './ranking';
import type { IndexedTable } from './table-index';
import type { Candidate, Classification, ClassificationSource, ClassifyInput, PartnerCheck } from './types';

/**
 * The offline classifier's answers from the table: the partner's declared code when the table has it,
 * the best row with its confidence, the best rows as candidates, and the fallback row.
 */

export const fallbackConfidence = 0.1;
export const partnerHs6Confidence = 0.9;
/** A match that rests only on typo-corrected words stays at or below this. */
const typoOnlyCap = 0.75;
/**
 * A match that meets no keyword whole (only words of a keyword phrase, `sal` of `sales de bano`, or
 * words of a row's description) stays at or below this.
 */
const partialOnlyCap = 0.65;
/** A row the description's own figures rule out (attributes.ts `contradicts`: `Scooter 50cc` and a toy) stays at or below this. */
export const contradictedCap = 0.6;

export const round2 = (x: number) => Math.round(x * 100) / 100;

/** Row `i` as the classification. */
export function answer(tab: IndexedTable, i: number, confidence: number, source: ClassificationSource, reason: string): Classification {
  const row = tab.rows[i];
  return { ncm_code: row.ncm, duty_rate: row.duty_rate, confidence, source, reason, description: row.description, duty_source: row.duty_source ?? importedDutySource(null) };
}

/** The fallback row: the answer when nothing matches (or the AI answered none), with a low confidence. */
export function fallback(tab: IndexedTable, reason: string): Classification {
  return answer(tab, tab.fallbackIndex, fallbackConfidence, 'offline', reason);
}

/** The partner hsCode alone: kept when the table has it, else a note saying why not. */
export function partner(tab: IndexedTable, input: ClassifyInput, query?: Query): PartnerCheck {
  const given = input.hsCode?.trim();
  if (!given) return {};
  const digits = ncmDigits(given);
  if (digits.length < 6) return { note: `Partner hsCode '${given}' is not an HS code (fewer than 6 digits); classified from the description.` };
  const exact = digits.length >= 8 ? tab.byDigits.get(digits.slice(0, 8)) : undefined;
  if (exact !== undefined) return { classification: answer(tab, exact, 1, 'partner', `Partner hsCode ${given} is NCM ${tab.rows[exact].ncm} of the tariff table.`) };
  const hs6 = digits.slice(0, 6);
  const under = tab.rows.map((r, i) => (ncmDigits(r.ncm).startsWith(hs6) ? i : -1)).filter((i) => i >= 0);
  const hs6Text = `${hs6.slice(0, 4)}.${hs6.slice(4)}`;
  if (!under.length) return { note: `Partner hsCode ${given} has no row in the tariff table (nothing under HS ${hs6Text}); classified from the description.` };
  const allowed = new Set(under);
  const q = query ?? readQuery(tab, input);
  const { order } = rank(tab, q.terms, (i) => allowed.has(i), q.attrs);
  const best = order[0] ?? under[0];
  const how = under.length === 1 ? 'the only NCM' : order.length ? 'the best NCM for the description' : 'the first NCM';
  return {
    classification: answer(tab, best, partnerHs6Confidence, 'partner', `Partner hsCode ${given} kept at HS ${hs6Text}; ${tab.rows[best].ncm} is ${how} under it.`),
  };
}

/**
 * The table's answer, its best row `order[0]`: the confidence combines how much of the description
 * the row explains (`total`, the query's weight) with its lead over the runner-up and over the best
 * row of another heading, capped for brand hints alone, partial phrases, typos, and (`fromHs`) words
 * the nomenclature knows and the row does not explain.
 */
export function tableAnswer(tab: IndexedTable, q: Query, order: readonly number[], total: number, fromHs: { tableShare: number } | undefined, note: string): Classification {
  const { terms } = q;
  const top = order[0];
  const s1 = tab.scores[top];
  const s2 = order.length > 1 ? tab.scores[order[1]] : 0;
  const heading = tab.rows[top].ncm.slice(0, 4);
  const otherHeading = order.find((i) => tab.rows[i].ncm.slice(0, 4) !== heading);
  const s3 = otherHeading === undefined ? 0 : tab.scores[otherHeading];
  const coverage = total > 0 ? Math.min(1, tab.covered[top] / total) : 0;
  const margin = 0.5 * ((s1 - s2) / s1) + 0.5 * ((s1 - s3) / s1);
  let confidence = 0.3 + 0.35 * coverage + 0.3 * margin;
  if (!tab.strong[top]) confidence = Math.min(confidence, 0.55);
  if (!tab.solid[top]) confidence = Math.min(confidence, partialOnlyCap);
  // A row found only through a typo-corrected word is less sure than one the words name.
  const exact = terms.some((q) => q.unigram && q.exact && tab.index.rowTerms[top].has(q.term));
  if (!exact) confidence = Math.min(confidence, typoOnlyCap);
  if (contradicts(q.attrs, tab.rowAttributes[top])) confidence = Math.min(confidence, contradictedCap);
  // Words the nomenclature knows and the row does not explain (not brands: the HS tier knows no brand) lower it.
  if (fromHs) confidence = Math.min(confidence, 0.35 + 0.6 * fromHs.tableShare);
  confidence = round2(Math.min(0.95, Math.max(0.3, confidence)));

  const matched = terms
    .filter((q) => tab.index.rowTerms[top].has(q.term))
    .map((q) => q.term.replaceAll('_', ' '))
    .slice(0, 6);
  const next = order.length > 1 ? `; next ${tab.rows[order[1]].ncm} at ${s2.toFixed(1)}` : '';
  return answer(tab, top, confidence, 'offline', `Matched ${matched.join(', ')} (score ${s1.toFixed(1)}${next}).${note}`);
}

/** The best `n` rows for the description (no partner code, no fallback), best first. */
export function candidates(tab: IndexedTable, input: ClassifyInput, n: number): Candidate[] {
  const q = readQuery(tab, input);
  const { order } = best(tab, q);
  return order.slice(0, Math.max(0, n)).map((i) => ({
    row: tab.rows[i],
    score: Math.round(tab.scores[i] * 1000) / 1000,
    // Why the row was proposed: the description's words (and phrases) it matched, as the classifier's reason names them.
    matched: [...new Set(q.terms.filter((t) => tab.index.rowTerms[i].has(t.term)).map((t) => t.term.replaceAll('_', ' ')))].slice(0, 6),
  }));
}
