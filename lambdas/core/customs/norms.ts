/**
 * The norms the customs rules tables cite, with the dates the Boletín Oficial gives them (issue 44):
 * the day each was published and the day it entered into force. A row of `regime-rules.ts` or
 * `tax-rules.ts` cites the norms its numbers come from, with the article, and takes effect on the
 * latest of their in-force dates (its `effective_from`).
 *
 * The dates were read on 2026-12-07 with the project's search tool (no other internet access). No
 * copy of the Boletín Oficial's own text of these norms was found: the publication dates and the
 * in-force rules come from law firms' and newspapers' accounts, quoted in `in_force_basis`; where
 * an article number could not be read it is marked `article_confirmed: false`.
 * docs/spec/customs-ar.md cites each, for brokers and partners.
 */

import { isCalendarDate } from './argentine-calendar';

export interface Norm {
  /** As the service names it: 'Decreto 1065/2024', 'RG ARCA 5608/2024'. */
  readonly norm: string;
  /** The Boletín Oficial's publication date (YYYY-MM-DD). */
  readonly published: string;
  /** The first day (YYYY-MM-DD, Argentine calendar) the norm is in force. */
  readonly in_force_from: string;
  /** What says so: the rule and the source it was read in. */
  readonly in_force_basis: string;
  /** `secondary`: read in a law firm's or a newspaper's account; `assumed`: no source gives the date, see the basis. */
  readonly checked: 'secondary' | 'assumed';
}

/** A norm as a table row cites it: which article, and which of the row's numbers it gives. */
export interface NormCitation extends Norm {
  readonly article: string;
  /** False when no source read gave the article's number: the article is the team's reading. */
  readonly article_confirmed: boolean;
  /** The row's fields this norm gives. */
  readonly gives: readonly string[];
}

export const norms = {
  decreto1065: {
    norm: 'Decreto 1065/2024',
    published: '2024-12-02',
    in_force_from: '2024-12-03',
    in_force_basis:
      'in force the day after its publication: "The first took effect the day after its publication" ' +
      '(Mallea Abogados, "Courier Regime – Latest Regulatory Amendments", malleaabogados.com; the same text on aduananews.com)',
    checked: 'secondary',
  },
  rg5608: {
    norm: 'RG ARCA 5608/2024',
    published: '2024-12-02',
    in_force_from: '2024-12-02',
    in_force_basis:
      'in force on the day of its publication: "the second took effect on the same day as its publication in the Official ' +
      'Gazette. However, the implementation of its provisions will be carried out according to the schedule available on ' +
      'the Envíos Internacionales Microsite" (Mallea Abogados, same article); that schedule was not found',
    checked: 'secondary',
  },
  rg5631: {
    norm: 'RG ARCA 5631/2025',
    published: '2025-01-23',
    in_force_from: '2025-01-23',
    in_force_basis:
      'published on Thursday 2025-01-23 ("publicada este jueves en el Boletín Oficial", delabahia.com.ar); in force the same ' +
      'day as press accounts report ("desde ayer ... publicada ayer en el Boletín Oficial"); the article giving its entry ' +
      'into force was not read: assumed in force on publication, like RG 5608/2024',
    checked: 'assumed',
  },
} as const satisfies Record<string, Norm>;

/** A citation of `norm` at `article` for the row's `gives` fields. */
export function cite(norm: Norm, article: string, gives: readonly string[], article_confirmed = false): NormCitation {
  return { ...norm, article, article_confirmed, gives };
}


/**
 * The day a row takes effect under the norms it cites: the latest of their in-force dates. Throws
 * a RangeError for a row without norms, a malformed date, or a norm in force before its publication.
 */
export function inForceFrom(cited: readonly Norm[], where: string): string {
  if (cited.length === 0) throw new RangeError(`${where}: cites no norm`);
  let latest = '';
  for (const n of cited) {
    if (!isCalendarDate(n.published) || !isCalendarDate(n.in_force_from)) throw new RangeError(`${where}: ${n.norm} has a malformed date`);
    if (n.in_force_from < n.published) throw new RangeError(`${where}: ${n.norm} is in force before its publication`);
    if (n.in_force_from > latest) latest = n.in_force_from;
  }
  return latest;
}

/**
 * Throws a RangeError unless every row of `table` cites its norms and takes effect on the day the
 * last of them enters into force (the built-in tables' tests call it; a lookup does not, so a
 * table written for a test or a simulation needs no citations).
 */
export function checkCitedTable(table: readonly { effective_from: string; norms: readonly Norm[] }[], what: string): void {
  for (const row of table) {
    const where = `${what} ${row.effective_from}`;
    const from = inForceFrom(row.norms, where);
    if (from !== row.effective_from) throw new RangeError(`${where}: its norms are in force from ${from}, not from its effective_from`);
  }
}
