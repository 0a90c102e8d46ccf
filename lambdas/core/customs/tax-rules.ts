/**
 * The duties-and-taxes rules table, as data with effective dates (domain/customs-ar.md: "every
 * number here belongs in a rules table with an effective date, not in code").
 *
 * A shipment is calculated with the entry in force on its date: the entry with the latest
 * `effective_from` that is not after that date. A new resolution is a new entry, never an edit of an
 * old one, so a manifest calculated again later gets the same numbers.
 *
 * The duty rate is not here: it belongs to the product's NCM code (the operator's tariff table) and
 * comes in with each product.
 *
 * Each entry cites its norms (`norms.ts`): the article, the Boletín Oficial's publication date and
 * the date of entry into force; `effective_from` is the latest of those in-force dates. Before the
 * first entry (2024-12-02) the service carries no rules and refuses the date.
 */
import { DATE, argentineDay, isCalendarDate } from './argentine-calendar';
import { cite, norms, type NormCitation } from './norms';

export type TaxRules = {
  /** First day (YYYY-MM-DD, Argentine calendar) the entry applies. */
  readonly effective_from: string;
  /** The rules the numbers come from, for the operator (short: explanations quote it). */
  readonly source: string;
  /** Each norm the entry's numbers come from: article, publication and entry into force. */
  readonly norms: readonly NormCitation[];
  /** Currency of every amount the calculation produces. */
  readonly currency: 'USD';
  /** Personal shipments within the yearly quota: this much FOB of the shipment is exempt from duty and statistics fee. */
  readonly personal_franchise_usd: number;
  /** Statistics fee, percent of the duty base. */
  readonly statistics_fee_rate: number;
  /** VAT, percent of CIF + duty + statistics fee. */
  readonly vat_rate: number;
  /** Freight added to FOB, USD per chargeable kg of the shipment (the manifest carries no freight). */
  readonly freight_usd_per_kg: number;
  /** Insurance added to FOB, percent of FOB. */
  readonly insurance_rate: number;
  /** Freight is charged for at least this many kg per shipment (also when no weight is declared). */
  readonly min_chargeable_kg?: number;
};

/** What partner or operator settings may change: every number of an entry. */
export type TaxRuleSettings = Partial<Omit<TaxRules, 'effective_from' | 'source' | 'currency' | 'norms'>>;

/** The entry in force on a date, with the settings that replaced its defaults. */
export type AppliedTaxRules = TaxRules & { readonly overridden: readonly (keyof TaxRuleSettings)[] };

const settingKeys = [
  'personal_franchise_usd',
  'statistics_fee_rate',
  'vat_rate',
  'freight_usd_per_kg',
  'insurance_rate',
  'min_chargeable_kg',
] as const satisfies readonly (keyof TaxRuleSettings)[];

const percentKeys = new Set<keyof TaxRuleSettings>(['statistics_fee_rate', 'vat_rate', 'insurance_rate']);

/** Service defaults the law does not set: each partner configures its own. */
const serviceDefaults = { freight_usd_per_kg: 5, insurance_rate: 1, min_chargeable_kg: 0.5 } as const;

/**
 * The built-in table. Freight, insurance and the minimum chargeable weight are service defaults
 * (the law sets none); the statistics fee and the VAT are older than the courier regime and their
 * sources are `tariff-rates.ts`'s. The franchise starts with Decreto 1065/2024, a day after the
 * regime of RG ARCA 5608/2024: on 2024-12-02 the regime's limits applied and no franchise did.
 */
export const taxRulesTable: readonly TaxRules[] = [
  {
    effective_from: '2024-12-02',
    source: 'RG ARCA 5608/2024 (before the franchise of Decreto 1065/2024)',
    norms: [cite(norms.rg5608, 'Anexo (the PSP/Courier regime the resolution approves)', ['the courier regime the entry calculates under'])],
    currency: 'USD',
    personal_franchise_usd: 0,
    statistics_fee_rate: 3,
    vat_rate: 21,
    ...serviceDefaults,
  },
  {
    effective_from: '2024-12-03',
    source: 'Decreto 1065/2024; RG ARCA 5608/2024',
    norms: [
      cite(norms.decreto1065, 'art. 1', ['personal_franchise_usd']),
      cite(norms.rg5608, 'Anexo (the PSP/Courier regime the resolution approves)', ['the courier regime the entry calculates under']),
    ],
    currency: 'USD',
    personal_franchise_usd: 400,
    statistics_fee_rate: 3,
    vat_rate: 21,
    ...serviceDefaults,
  },
];

function checkSetting(key: keyof TaxRuleSettings, value: unknown, where: string): void {
  if (value === undefined && key === 'min_chargeable_kg') return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`${where}: ${key} must be a finite number >= 0, got ${JSON.stringify(value)}`);
  }
  if (percentKeys.has(key) && value > 100) throw new RangeError(`${where}: ${key} is a percent (0-100), got ${value}`);
}

function checkEntry(entry: TaxRules): void {
  const where = `tax rules ${entry.effective_from}`;
  if (!isCalendarDate(entry.effective_from)) throw new RangeError(`${where}: effective_from must be YYYY-MM-DD`);
  if (entry.currency !== 'USD') throw new RangeError(`${where}: currency must be USD`);
  for (const key of settingKeys) checkSetting(key, entry[key], where);
}

/** The date to look the rules up with: the Argentine date of an instant (argentine-calendar.ts). '2024-12-03T02:00:00Z' -> '2024-12-02'. */
export const argentineDate = argentineDay;

/**
 * The rules in force on `date` (YYYY-MM-DD, Argentine calendar; or an instant, read as its Argentine
 * date), with `overrides` (the partner's or operator's settings) replacing the table's numbers.
 * Throws a RangeError for a malformed date, a date before the first entry, or a setting that is not
 * a number >= 0 (a percent above 100).
 */
export function taxRulesAt(
  at: string | Date,
  overrides: TaxRuleSettings = {},
  table: readonly TaxRules[] = taxRulesTable,
): AppliedTaxRules {
  const date = typeof at === 'string' && DATE.test(at) ? at : argentineDate(at);
  if (!isCalendarDate(date)) throw new RangeError(`date must be YYYY-MM-DD, got ${JSON.stringify(at)}`);
  const dates = new Set<string>();
  let chosen: TaxRules | undefined;
  for (const entry of table) {
    checkEntry(entry);
    if (dates.has(entry.effective_from)) throw new RangeError(`tax rules: two entries take effect on ${entry.effective_from}`);
    dates.add(entry.effective_from);
    if (entry.effective_from <= date && (!chosen || entry.effective_from > chosen.effective_from)) chosen = entry;
  }
  if (!chosen) {
    const first = [...table].sort((a, b) => a.effective_from.localeCompare(b.effective_from))[0];
    throw new RangeError(
      `no tax rules in force on ${date}` +
        (first ? `: the service carries the courier regime from ${first.effective_from} (${first.source}); the earlier regime is not modelled` : ''),
    );
  }
  const overridden: (keyof TaxRuleSettings)[] = [];
  const result: { -readonly [K in keyof TaxRules]: TaxRules[K] } = { ...chosen };
  for (const key of settingKeys) {
    if (!(key in overrides) || overrides[key] === undefined) continue;
    checkSetting(key, overrides[key], 'settings');
    result[key] = overrides[key] as number;
    overridden.push(key);
  }
  return { ...result, overridden };
}
