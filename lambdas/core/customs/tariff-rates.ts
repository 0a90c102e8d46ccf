/**
 * Which rates of a product were verified (issue 21): the duty of its NCM, the statistics fee and
 * the VAT, each with the source it comes from and the date that source was read, or marked
 * `unverified` when no source was found. A customs result is only worth what its least-checked
 * number is, so a processed product and a quote carry this record beside their numbers.
 *
 * VAT follows the NCM (Ley de IVA, t.o. 1997): 21% in general, 10.5% for the goods of art. 28's
 * reduced list, 0 for the goods art. 7 exempts. The rules are data with effective dates, like the
 * duties-and-taxes table: a change of the law is a new entry, never an edit.
 *
 * Sources were looked up on 2026-11-24 with the project's search tool (no other internet access);
 * where a rule rests on the team's reading of the law and no copy of the text was found, it says so.
 */

export type RateStatus = 'verified' | 'unverified' | 'imported';

/** One rate and where it comes from. */
export interface RateCheck {
  /** Percent. */
  rate: number;
  /** `verified`: a source was read; `unverified`: none was found; `imported`: the operator's tariff table. */
  status: RateStatus;
  source: string;
  /** The date the source was read (YYYY-MM-DD). */
  read?: string;
  note?: string;
}

/** The three rates of a product and whether every one of them was verified. */
export interface TariffRates {
  duty: RateCheck;
  statistics_fee: RateCheck;
  vat: RateCheck;
  /** True only when duty, statistics fee and VAT are all `verified` (or the duty is the operator's import). */
  verified: boolean;
}

export const sourcesReadOn = '2026-11-24';

/** The public texts the rules cite. */
export const rateSources = {
  vatArt28: {
    title: 'Ley de Impuesto al Valor Agregado (t.o. 1997, Decreto 280/1997), art. 28',
    url: 'https://es.scribd.com/document/664013113/Articulo-28-Ley-del-Impuesto-al-Valor-Agregado-10-5-Emergencias-Medicas',
  },
  statisticsFee: {
    title: 'Decreto 1140/2024 (B.O. 2024-12-31): tasa de estadística 3% until 2027-12-31',
    url: 'https://infobae.com/economia/2024/12/31/el-gobierno-elimino-el-impuesto-pais-pero-prorrogo-la-tasa-de-estadistica-el-impacto-en-las-importaciones',
  },
  aec: {
    title: 'Decisión CMC 29/2015 (Arancel Externo Común, Anexo I del Decreto 2166/2015)',
    url: 'https://argentina.gob.ar/normativa/nacional/decisi%C3%B3n-29-2015-254204',
  },
} as const;

/** A VAT rule: the goods whose NCM starts with one of `ncm` (digits) pay `rate`. */
export interface VatRule {
  ncm: readonly string[];
  rate: number;
  status: Exclude<RateStatus, 'imported'>;
  basis: string;
  note?: string;
}

export interface VatRulesEntry {
  /** First day (YYYY-MM-DD, Argentine calendar) the entry applies. */
  effective_from: string;
  general: { rate: number; basis: string };
  /** Longest matching prefix wins; goods matching none pay the general rate. */
  rules: readonly VatRule[];
}

const general21 = `${rateSources.vatArt28.title}, first paragraph: 21%`;

/**
 * The VAT rules in force. The entry starts with the courier regime the service calculates under,
 * the first day of `taxRulesTable` (RG ARCA 5608/2024, in force 2024-12-02; the rates themselves
 * are older than that).
 */
export const vatRulesTable: readonly VatRulesEntry[] = [
  {
    effective_from: '2024-12-02',
    general: { rate: 21, basis: general21 },
    rules: [
      {
        ncm: ['4901', '4902', '4903'],
        rate: 0,
        status: 'unverified',
        basis: 'Ley de IVA art. 7 inc. a): books, brochures and similar printed matter, newspapers and periodicals are exempt',
        note: 'the team\'s reading of art. 7; no copy of its text was found by search on 2026-11-24: confirm before relying on it',
      },
      {
        ncm: ['0409'],
        rate: 21,
        status: 'verified',
        basis: `${rateSources.vatArt28.title}, inc. a) 4: only honey in bulk ("miel de abejas a granel") pays 10.5%; honey put up for retail pays the general 21%`,
      },
      {
        // Food: art. 28 a) lists fresh meat, fruit and vegetables, grains, flour and bread; its text
        // was read up to point 7, and the bakery point is cut where it sets its conditions.
        ncm: ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20', '21', '22', '23', '24'],
        rate: 21,
        status: 'unverified',
        basis: general21,
        note: 'food: art. 28 inc. a) gives 10.5% to some foods; its list was read only in part (points 1 to 7), so the general rate is not confirmed for this NCM',
      },
      {
        // Capital goods, computing and telecommunications: art. 28 inc. c) and its annexed list.
        ncm: ['84', '85', '90'],
        rate: 21,
        status: 'unverified',
        basis: general21,
        note: 'machines, electronics and instruments: art. 28 inc. c) gives 10.5% to the capital goods of its annexed list, which was not found; confirm the NCM is not on it',
      },
    ],
  },
];

/** The statistics fee's entries (the rate itself is in the duties-and-taxes rules table). */
export const statisticsFeeChecks: readonly { effective_from: string; rate: number; basis: string; until: string }[] = [
  { effective_from: '2024-12-02', rate: 3, basis: rateSources.statisticsFee.title, until: '2027-12-31' },
];

function entryAt<T extends { effective_from: string }>(table: readonly T[], date: string, what: string): T {
  let chosen: T | undefined;
  for (const e of table) if (e.effective_from <= date && (!chosen || e.effective_from > chosen.effective_from)) chosen = e;
  if (!chosen) throw new RangeError(`no ${what} in force on ${date}`);
  return chosen;
}

/** The VAT of an NCM (any punctuation) on a date (YYYY-MM-DD, Argentine calendar). */
export function vatAt(ncm: string, date: string, table: readonly VatRulesEntry[] = vatRulesTable): RateCheck {
  const entry = entryAt(table, date, 'VAT rules');
  const digits = ncm.replace(/\D/g, '');
  let best: { rule: VatRule; length: number } | undefined;
  for (const rule of entry.rules) {
    for (const prefix of rule.ncm) {
      if (digits.startsWith(prefix) && (!best || prefix.length > best.length)) best = { rule, length: prefix.length };
    }
  }
  if (!best) return { rate: entry.general.rate, status: 'verified', source: entry.general.basis, read: sourcesReadOn };
  const { rule } = best;
  return {
    rate: rule.rate,
    status: rule.status,
    source: rule.basis,
    ...(rule.status === 'verified' ? { read: sourcesReadOn } : {}),
    ...(rule.note ? { note: rule.note } : {}),
  };
}

/** The statistics fee `rate` (from the rules in force) checked against its source on a date. */
export function statisticsFeeAt(rate: number, date: string): RateCheck {
  const entry = entryAt(statisticsFeeChecks, date, 'statistics fee source');
  if (entry.rate === rate && date <= entry.until) return { rate, status: 'verified', source: entry.basis, read: sourcesReadOn };
  return { rate, status: 'unverified', source: 'operator or partner setting', note: `the cited rate is ${entry.rate}% until ${entry.until}` };
}

/** Where the duty of a tariff row comes from. */
export type DutySource = Omit<RateCheck, 'rate'>;

/** The duty of a built-in row: no per-NCM source was found, so every built-in duty is an estimate. */
export const builtinDutySource: DutySource = {
  status: 'unverified',
  source: 'built-in estimate',
  note:
    `no per-NCM source of the Mercosur common external tariff was found by search on ${sourcesReadOn} ` +
    `(the legal instrument is ${rateSources.aec.title}); import the official table to classify for real`,
};

/** The duty of a row of the operator's imported table. */
export const importedDutySource = (version: string | null): DutySource => ({
  status: 'imported',
  source: version ? `the operator's tariff table (version ${version})` : "the operator's tariff table",
});

/** The three rates of one product, as a processed product and a quote report them. */
export function tariffRatesOf(p: { ncm: string; duty_rate: number; duty_source?: DutySource; statistics_fee_rate: number; date: string }): TariffRates {
  const duty: RateCheck = { rate: p.duty_rate, ...(p.duty_source ?? { status: 'unverified', source: 'unknown' }) };
  const statistics_fee = statisticsFeeAt(p.statistics_fee_rate, p.date);
  const vat = vatAt(p.ncm, p.date);
  const ok = (c: RateCheck) => c.status === 'verified' || c.status === 'imported';
  return { duty, statistics_fee, vat, verified: ok(duty) && ok(statistics_fee) && ok(vat) };
}

/** What a processed product keeps of its rates: each rate and its status (the sources are the quote's and docs/tariff/sources.md's). */
export interface TariffRateStatuses {
  duty: Pick<RateCheck, 'rate' | 'status' | 'source'>;
  statistics_fee: Pick<RateCheck, 'rate' | 'status'>;
  vat: Pick<RateCheck, 'rate' | 'status'>;
  verified: boolean;
}

/**
 * The rates in a few dozen bytes: a manifest of 100,000 products carries this per product, so the
 * sources' sentences stay out of it.
 */
export function rateStatuses(r: TariffRates): TariffRateStatuses {
  return {
    duty: { rate: r.duty.rate, status: r.duty.status, source: r.duty.source },
    statistics_fee: { rate: r.statistics_fee.rate, status: r.statistics_fee.status },
    vat: { rate: r.vat.rate, status: r.vat.status },
    verified: r.verified,
  };
}
