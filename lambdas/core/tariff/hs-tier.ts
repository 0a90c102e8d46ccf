import { maxDutyRate, ncmDigits } from './table';
import type { HsIndex, HsMatch } from './hs-fallback';
import { isAppearanceTerm, isGenderTerm, isMaterialTerm } from './attributes';
import { secondaryWeight } from './text';
import { answer, partner, round2 } from './answers';
import { explainedByRow, explanation, wholePhraseWords } from './explanation';
import { readQuery, type Query } from './query';
import { best, rank } from './ranking';
import { fuzzy, type IndexedTable } from './table-index';
import type { Classification, ClassifyInput } from './types';

/**
 * The HS tier in the offline classifier: when the whole nomenclature (hs-fallback.ts) explains more of
 * a description than the table's best row, its subheading answers (completed to an NCM of the table
 * under it, else with an estimated duty, always reviewed); and a partner's valid declared NCM the
 * table lacks is kept against an answer that is always reviewed.
 */

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
/** How much a material word weighs, against a product word, when the table and the HS tier are compared. */
const materialWordShare = 0.5;

/**
 * Whether the HS tier could change the answer: nothing matches, the best row leaves a word of the
 * description unexplained, or the partner declared an NCM the table lacks (the tier checks it is valid).
 */
export function hsCouldHelp(tab: IndexedTable, input: ClassifyInput): boolean {
  const q = readQuery(tab, input);
  if (partner(tab, input, q).classification) return false;
  // A declared NCM the table lacks: the tier says whether it is a valid code, to keep against a weak answer.
  if (ncmDigits(input.hsCode ?? '').length >= 8) return true;
  const { order } = best(tab, q);
  if (!order.length) return true;
  return q.toks.some((t) => !explainedByRow(tab, order[0], t.term));
}

/** The HS tier's answer when it explains more of the description than the table's best row. */
export function hsAnswer(tab: IndexedTable, q: Query, hs: HsIndex, top: number | undefined, note: string, siblings: readonly number[] = []): { answer?: Classification; tableShare: number } {
  const { toks, attrs, terms: qTerms } = q;
  const words = toks.map((t) => t.term);
  const m: HsMatch | undefined = hs.match(words, attrs);
  // Each word counts as much as it is specific in the nomenclature; a word only the table knows, as a
  // typical word; a word nobody knows, as half of one (a glossary word with no English weighs nothing).
  const weight = words.map((w, k) => {
    const base = m?.weights[k]
      ? m.weights[k]
      : tab.index.postings.has(w) || fuzzy(tab, w) !== undefined
        ? hsTableWordWeight
        : hs.knows(w) || /\d/.test(w)
          ? 0
          : unknownWordWeight;
    // Who wears it says nothing of what it is; a material or how it looks says less than the product's name.
    const attribute = isGenderTerm(w) ? 0 : isMaterialTerm(w) || isAppearanceTerm(w) ? materialWordShare : 1;
    return base * attribute * (toks[k].secondary ? secondaryWeight : 1);
  });
  const sum = (keep: (k: number) => boolean) => weight.reduce((s, w, k) => (keep(k) ? s + w : s), 0);
  const whole = top === undefined ? new Set<string>() : wholePhraseWords(tab, top, qTerms);
  const siblingWhole = siblings.map((i) => [i, wholePhraseWords(tab, i, qTerms)] as const);
  // A word a sibling row of the same heading explains (the gender or material routing chose between them) is explained by the table.
  const strength = words.map((w) =>
    top === undefined ? 0 : Math.max(explanation(tab, top, w, whole), ...siblingWhole.map(([i, sw]) => explanation(tab, i, w, sw))),
  );
  const byTable = weight.reduce((s, w, k) => s + w * strength[k], 0);
  const total = Math.max(1e-9, sum(() => true));
  const tableShare = byTable / total;
  if (!m) return { tableShare };
  const byHs = sum((k) => m.explained[k]);
  if (top !== undefined && ncmDigits(tab.rows[top].ncm).startsWith(m.hs6)) return { tableShare: Math.max(tableShare, byHs / total) };
  // A phrase met whole (`motor oil`, `chain saw`) says more than its words met apart.
  const tablePhrases = top === undefined ? 0 : qTerms.filter((q) => !q.unigram && tab.index.rowTerms[top].has(q.term)).length;
  const hsPhrases = m.matched.filter((t) => t.includes(' ')).length;
  const phraseBonus = hsPhraseWeight * (Math.min(2, hsPhrases) - Math.min(2, tablePhrases));
  if (byHs + phraseBonus <= byTable + hsLead) return { tableShare };
  const share = byHs / total;
  const margin = m.score > 0 ? (m.score - m.runnerUp) / m.score : 0;
  const raw = 0.3 + 0.3 * share + 0.25 * margin;
  const hsText = `${m.hs6.slice(0, 4)}.${m.hs6.slice(4)}`;
  const why = `HS fallback: matched ${m.matched.slice(0, 6).join(', ')} in HS ${hsText} (${m.description.slice(0, 120)})`;
  const under = tab.rows.map((r, i) => (ncmDigits(r.ncm).startsWith(m.hs6) ? i : -1)).filter((i) => i >= 0);
  if (under.length) {
    const allowed = new Set(under);
    const { order } = rank(tab, qTerms, (i) => allowed.has(i), attrs);
    const row = order[0] ?? under[0];
    const confidence = round2(Math.min(hsCompletedCap, raw));
    return { tableShare, answer: answer(tab, row, confidence, 'hs-fallback', `${why}; NCM ${tab.rows[row].ncm} of the tariff table under it.${note}`) };
  }
  const { duty, basis } = estimatedDuty(tab, m.hs6);
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
export function estimatedDuty(tab: IndexedTable, digits: string): { duty: number; basis: string } {
  const chapter = digits.slice(0, 2);
  const inChapter = tab.rows.filter((r) => r.ncm.startsWith(chapter)).map((r) => r.duty_rate);
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
export function keepDeclared(tab: IndexedTable, input: ClassifyInput, found: Classification, hs: HsIndex): Classification {
  const given = input.hsCode?.trim();
  const digits = ncmDigits(given ?? '');
  if (!given || digits.length < 8 || found.confidence > hsOnlyCap) return found;
  const sub = hs.subheading(digits.slice(0, 6));
  if (!sub) return found;
  const code = `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6, 8)}`;
  const hsText = `${digits.slice(0, 4)}.${digits.slice(4, 6)}`;
  const { duty, basis } = estimatedDuty(tab, digits);
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
