/**
 * The courier-regime limits and the personal-shipment quota, as a rules table with effective
 * dates (domain/customs-ar.md: every number belongs in a rules table, not in code). A shipment is
 * classified with the entry in force on its date: the entry with the latest `effective_from` not
 * after that date. A new resolution is a new entry, never an edit of an old one, so a manifest
 * classified again later gets the same answer. The duty and tax numbers live in `tax-rules.ts`.
 *
 * Each entry cites its norms (`norms.ts`): the article, the Boletín Oficial's publication date and
 * the date of entry into force; `effective_from` is the latest of those in-force dates. Before the
 * first entry (2024-12-02, RG ARCA 5608/2024) the service carries no rules: the earlier courier
 * regime (USD 1,000 per flight, RG 5260/2022) is not modelled, and a date before it is refused.
 */
import { DATE, argentineDay, isCalendarDate } from './argentine-calendar';
import { cite, norms, type NormCitation } from './norms';

export interface RegimeRules {
  /** First day (YYYY-MM-DD, Argentine calendar) the entry applies. */
  readonly effective_from: string;
  /** Above this FOB (USD, summed over the shipment) the shipment cannot clear as a courier shipment. */
  readonly max_fob_usd_per_shipment: number;
  /** The weight limit (kg) of the courier regime. */
  readonly max_kg_per_package: number;
  /**
   * What the weight limit applies to: the whole shipment (RG 5608/2024 as first read) or each
   * package of it (RG 5631/2025: "hasta 50 kg por pieza, sin importar el peso total del envío").
   */
  readonly weight_limit_applies_to: 'shipment' | 'package';
  /** A personal shipment carries at most this many units of the same kind. */
  readonly max_units_same_kind: number;
  /** Personal shipments per person per calendar year (the quota). */
  readonly personal_shipments_per_year: number;
  /** The rule the numbers come from, short (reasons quote it). */
  readonly source: string;
  /** Each norm the numbers come from: article, publication and entry into force. */
  readonly norms: readonly NormCitation[];
}

const limits = ['max_fob_usd_per_shipment', 'max_kg_per_package', 'max_units_same_kind', 'personal_shipments_per_year'];

export const regimeRulesTable: readonly RegimeRules[] = [
  {
    effective_from: '2024-12-02',
    max_fob_usd_per_shipment: 3000,
    max_kg_per_package: 50,
    weight_limit_applies_to: 'shipment',
    max_units_same_kind: 3,
    personal_shipments_per_year: 5,
    source: 'RG ARCA 5608/2024',
    norms: [cite(norms.rg5608, 'Anexo (the PSP/Courier regime the resolution approves)', [...limits, 'weight_limit_applies_to'])],
  },
  {
    effective_from: '2025-01-23',
    max_fob_usd_per_shipment: 3000,
    max_kg_per_package: 50,
    weight_limit_applies_to: 'package',
    max_units_same_kind: 3,
    personal_shipments_per_year: 5,
    source: 'RG ARCA 5631/2025',
    norms: [
      cite(norms.rg5608, 'Anexo (the PSP/Courier regime the resolution approves)', limits),
      cite(norms.rg5631, 'its amendment of the Anexo of RG 5608/2024: "hasta 50 kg por pieza"', ['weight_limit_applies_to']),
    ],
  },
];

/** Rules and the quota year are read on Argentine dates (argentine-calendar.ts). */
export { argentineDay };

/** The calendar year (in Argentina) a personal shipment handled at `at` counts against. */
export function quotaYear(at: Date | string): number {
  return Number(argentineDay(at).slice(0, 4));
}


/** What a date before the table gets: a refusal that says where the table starts. */
function beforeFirst(table: readonly { effective_from: string; source: string }[]): string {
  const first = [...table].sort((a, b) => a.effective_from.localeCompare(b.effective_from))[0];
  return first
    ? `the service carries the courier regime from ${first.effective_from} (${first.source}); the earlier regime is not modelled`
    : 'the table is empty';
}

/**
 * The rules in force on `date`: YYYY-MM-DD (Argentine calendar), or an ISO instant, read as its
 * Argentine date. Throws a RangeError for a malformed date or a date before the first entry.
 */
export function regimeRulesAt(date: string | Date, table: readonly RegimeRules[] = regimeRulesTable): RegimeRules {
  const day = typeof date === 'string' && DATE.test(date) ? date : argentineDay(date);
  if (!isCalendarDate(day)) throw new RangeError(`date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
  let chosen: RegimeRules | undefined;
  for (const entry of table) {
    if (!isCalendarDate(entry.effective_from)) throw new RangeError(`regime rules: effective_from must be YYYY-MM-DD, got ${entry.effective_from}`);
    if (entry.effective_from <= day && (!chosen || entry.effective_from > chosen.effective_from)) chosen = entry;
  }
  if (!chosen) throw new RangeError(`no regime rules in force on ${day}: ${beforeFirst(table)}`);
  return chosen;
}
