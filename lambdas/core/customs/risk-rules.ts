import { normalizeText } from './prohibited';
import { regimeRulesAt } from './regime-rules';
import { taxRulesAt } from './tax-rules';
import { checkTaxId, quotaHolder } from './tax-id';

/**
 * The risk rules a courier broker in Argentina is liable for (issue 40, item 5), as rules a broker
 * can read: each has a code, a reason in Spanish and in English, and the norm it rests on
 * (domain/customs-ar.md). Pure: the pipeline (services/pipeline/risk.ts) feeds a flight's items
 * in, one at a time, in the loop that already reads them, and asks for the flags once.
 *
 * - Split shipments: one consignee (the same tax id, or the same name and address) across several
 *   AWBs of the same flight (batch), each within a limit of the courier regime and together over
 *   it: USD 3,000 FOB per shipment, the franchise's USD 400, 3 units of a kind.
 * - Under-valuation: an FOB per unit far below what the same NCM usually declares in this
 *   service's history (median and MAD of the logarithm of the unit value, kept as a bounded
 *   histogram per NCM).
 * - Quota run out in the flight: a tax id that took a personal slot in this flight and had another
 *   of its shipments in the same flight find the year's quota used up.
 * - Split across couriers: one tax id with AWBs of this flight and of other couriers' flights
 *   processed within a window of days, each AWB within a limit and together over it. What the
 *   other flights hold is read as a small summary per tax id and batch (ConsigneeSeen), kept by
 *   infra/entities/risk-consignees.ts; a reason gives only counts and sums of the other couriers,
 *   never their names or AWBs (a partner reads its flags).
 */

import type { RiskCode } from './risk-codes';

export { riskCodes, type RiskCode } from './risk-codes';

/** A flag on a product: the rule's code, why (Spanish, the console's language; and English) and the norm. */
export interface RiskFlag {
  code: RiskCode;
  reason: string;
  reason_en: string;
  norm: string;
}

/** Each rule as a broker reads it: what it checks, in Spanish and English, and its norm. */
export const riskRuleCatalog: Record<RiskCode, { es: string; en: string; norm: string }> = {
  split_over_courier_limit: {
    es: 'Envío fraccionado: el mismo destinatario recibe varias guías en el vuelo, cada una dentro del límite de USD 3.000 FOB del régimen courier y juntas por encima.',
    en: 'Split shipment: one consignee gets several AWBs on the flight, each within the courier limit of USD 3,000 FOB, together over it.',
    norm: 'Decreto 1065/2024; RG ARCA 5608/2024 (USD 3.000 FOB por envío y destinatario)',
  },
  split_over_franchise: {
    es: 'Envío fraccionado: el mismo destinatario recibe varias guías en el vuelo, cada una dentro de la franquicia de USD 400 FOB y juntas por encima.',
    en: 'Split shipment: one consignee gets several AWBs on the flight, each within the USD 400 FOB franchise, together over it.',
    norm: 'RG ARCA 5608/2024 (franquicia de USD 400 FOB por envío personal)',
  },
  split_over_units: {
    es: 'Envío fraccionado: el mismo destinatario recibe varias guías en el vuelo con unidades de la misma especie, cada una con 3 o menos y juntas más de 3.',
    en: 'Split shipment: one consignee gets several AWBs on the flight with units of the same kind, 3 or fewer each, more than 3 together.',
    norm: 'RG ARCA 5608/2024 (hasta 3 unidades de la misma especie por envío personal)',
  },
  under_valuation: {
    es: 'Subvaluación: el FOB por unidad está muy por debajo de lo que declara habitualmente la misma NCM en este servicio (mediana y MAD).',
    en: 'Under-valuation: the FOB per unit is far below what the same NCM usually declares in this service (median and MAD).',
    norm: 'Ley 22.415 (Código Aduanero), valor en aduana declarado; Acuerdo de Valoración de la OMC (Ley 24.425)',
  },
  quota_ran_out_in_flight: {
    es: 'Cupo agotado en el vuelo: el mismo CUIT/CUIL/DNI usó un envío personal en este vuelo y otra de sus guías del vuelo encontró el cupo anual agotado.',
    en: 'Quota run out in the flight: the same tax id used a personal shipment on this flight and another of its AWBs on the flight found the yearly quota used up.',
    norm: 'Decreto 1065/2024; RG ARCA 5608/2024 (5 envíos personales por año calendario y persona)',
  },
  split_across_couriers: {
    es: 'Envío fraccionado entre couriers: el mismo CUIT/CUIL/DNI recibe guías de este vuelo y de vuelos de otros couriers en los últimos días, cada una dentro de un límite del régimen (USD 3.000 FOB, la franquicia de USD 400, 3 unidades de una especie) y juntas por encima.',
    en: 'Split across couriers: one tax id gets AWBs on this flight and on other couriers\' flights of the last days, each within a limit of the regime (USD 3,000 FOB, the USD 400 franchise, 3 units of a kind), together over it.',
    norm: 'Decreto 1065/2024; RG ARCA 5608/2024 (USD 3.000 FOB por envío y destinatario; franquicia de USD 400; hasta 3 unidades de la misma especie)',
  },
};

/** The numbers of the rules: the regime's limits in force, and the settings of the statistics. */
export interface RiskRules {
  /** Off: no flags are computed (`riskRules` setting `{"enabled": false}`; bench:pipeline's comparison). */
  readonly enabled: boolean;
  /** USD FOB a courier shipment may carry (regime rules). */
  readonly split_max_fob_usd: number;
  /** USD FOB of a personal shipment free of duty (tax rules). */
  readonly split_franchise_usd: number;
  /** Units of a kind a personal shipment may carry (regime rules). */
  readonly split_max_units_same_kind: number;
  /** How many MADs (scaled by 0.6745, the robust z of Iglewicz and Hoaglin) below the median flags an FOB per unit. */
  readonly undervaluation_robust_z: number;
  /** And the FOB per unit must be at most this share of the NCM's median. */
  readonly undervaluation_max_share_of_median: number;
  /** Values of the NCM the history must hold before the rule judges it. */
  readonly undervaluation_min_sample: number;
  /** Days back (the run's date included) in which other couriers' flights count for `split_across_couriers`. */
  readonly cross_courier_window_days: number;
}

/** What the `riskRules` setting may change. */
export type RiskSettings = Partial<RiskRules>;

/** The statistics' defaults: a robust z of 3.5 (the usual outlier cut), at most half the median, 30 values. */
export const riskDefaults = {
  enabled: true,
  undervaluation_robust_z: 3.5,
  undervaluation_max_share_of_median: 0.5,
  undervaluation_min_sample: 30,
  cross_courier_window_days: 7,
} as const;

/** The longest window a setting may ask: the summaries are kept no longer (their items' TTL). */
export const maxCrossCourierWindowDays = 31;

const numberKeys = [
  'split_max_fob_usd',
  'split_franchise_usd',
  'split_max_units_same_kind',
  'undervaluation_robust_z',
  'undervaluation_max_share_of_median',
  'undervaluation_min_sample',
  'cross_courier_window_days',
] as const satisfies readonly (keyof RiskRules)[];

/**
 * The rules in force at `at`: the limits from the regime and tax rules tables of that date, the
 * statistics' defaults, then `overrides` (the `riskRules` setting). Throws a RangeError for a
 * setting that is not a finite number >= 0 (a share above 1), or an `enabled` that is not boolean.
 */
export function riskRulesAt(at: Date | string, overrides: RiskSettings = {}): RiskRules {
  const regime = regimeRulesAt(at);
  const tax = taxRulesAt(at);
  const rules: { -readonly [K in keyof RiskRules]: RiskRules[K] } = {
    ...riskDefaults,
    split_max_fob_usd: regime.max_fob_usd_per_shipment,
    split_franchise_usd: tax.personal_franchise_usd,
    split_max_units_same_kind: regime.max_units_same_kind,
  };
  if (overrides.enabled !== undefined) {
    if (typeof overrides.enabled !== 'boolean') throw new RangeError(`riskRules: enabled must be true or false, got ${JSON.stringify(overrides.enabled)}`);
    rules.enabled = overrides.enabled;
  }
  for (const key of numberKeys) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new RangeError(`riskRules: ${key} must be a finite number >= 0, got ${JSON.stringify(value)}`);
    if (key === 'undervaluation_max_share_of_median' && value > 1) throw new RangeError(`riskRules: ${key} is a share (0-1), got ${value}`);
    if (key === 'cross_courier_window_days' && (!Number.isInteger(value) || value < 1 || value > maxCrossCourierWindowDays))
      throw new RangeError(`riskRules: ${key} is a whole number of days from 1 to ${maxCrossCourierWindowDays}, got ${value}`);
    rules[key] = value;
  }
  return rules;
}

/** The `riskRules` setting's text (JSON of `RiskSettings`), or {} when unset; throws a RangeError for text that is not a JSON object. */
export function parseRiskSettings(text: string | undefined): RiskSettings {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RangeError(`riskRules: not JSON: ${text.slice(0, 80)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new RangeError('riskRules: must be a JSON object');
  return parsed as RiskSettings;
}

// ---------------------------------------------------------------------------------------------
// Consignees and kinds

/** What of a manifest item the rules read. */
export interface RiskItem {
  consigneeName: string;
  consigneeAddress?: string;
  consigneeIdType?: string;
  consigneeIdNumber?: string;
  itemDescription?: string;
  itemName?: string;
  hsCode?: string;
  fobValueUsd?: number;
  amountOfItems?: number;
}

/** What of a product's result the rules read (after the web-services and tariff stages). */
export interface RiskResult {
  ncm_code?: string | null;
  quota?: number | null;
  tax_id_alert?: string | null;
}

/** A name or address as the consignee key reads it: case, accents, punctuation and spacing folded. */
export const normalizedName = (s: string | null | undefined): string => normalizeText(s ?? '');

/**
 * The keys one consignee is known by: its tax id (a CUIL and the DNI inside it are one person;
 * an invalid id by its digits), and its name with its address when the address is given.
 */
export function consigneeKeys(d: RiskItem): { keys: string[]; taxLabel: string | null; holder: string | null } {
  const keys: string[] = [];
  let taxLabel: string | null = null;
  let holder: string | null = null;
  if (d.consigneeIdNumber) {
    const check = checkTaxId(d.consigneeIdNumber, d.consigneeIdType);
    holder = quotaHolder(check);
    const digits = d.consigneeIdNumber.replace(/\D/g, '');
    if (holder || digits) keys.push(`T:${holder ?? digits}`);
    taxLabel = `${check.type ?? 'CUIT/CUIL/DNI'} ${check.formatted ?? digits}`;
  }
  const address = normalizedName(d.consigneeAddress);
  const name = normalizedName(d.consigneeName);
  if (address && name) keys.push(`N:${name}|${address}`);
  return { keys, taxLabel, holder };
}

/** Units of an item line: `amountOfItems`, 1 when absent or under 1 (as the regime counts them). */
export const unitsOf = (d: RiskItem): number => (typeof d.amountOfItems === 'number' && d.amountOfItems >= 1 ? Math.floor(d.amountOfItems) : 1);

/** The kinds an item is of, as the regime groups them: its HS subheading (6 digits) and its normalized description. */
export function kindKeys(d: RiskItem): string[] {
  const out: string[] = [];
  const hs = (d.hsCode ?? '').replace(/\D/g, '');
  if (hs.length >= 6) out.push(`HS ${hs.slice(0, 6)}`);
  const text = normalizeText(d.itemDescription ?? d.itemName ?? '');
  if (text) out.push(text);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Unit values and their history

/** Unit values are kept in bins 5% wide on a logarithmic scale: bin k holds values around 1.05^(k - binOffset) USD. */
export const binRatio = 1.05;
export const binOffset = 100;
/** Bins 0 .. maxBin: USD 0.0076 to about USD 2.9 billion; values beyond land in the end bins. */
export const maxBin = 600;
const logRatio = Math.log(binRatio);

/** The bin of a unit value (USD > 0). */
export function valueBin(usd: number): number {
  return Math.min(maxBin, Math.max(0, Math.round(Math.log(usd) / logRatio) + binOffset));
}

/** The value a bin stands for. */
export const binValue = (bin: number): number => binRatio ** (bin - binOffset);

/** An NCM's history: how many values fell in each bin (the stored item holds these counts, at most maxBin + 1 of them). */
export type ValueHistogram = ReadonlyMap<number, number>;

/** What the rule reads of an NCM's history: its size, the median unit value and the MAD of the values' logarithms. */
export interface ValueStats {
  n: number;
  median: number;
  /** Median absolute deviation of ln(value), at least one bin's width (the histogram's resolution). */
  madLog: number;
}

/** The weighted median of (value, count) pairs sorted by value. */
function weightedMedian(pairs: readonly (readonly [number, number])[], n: number): number {
  let seen = 0;
  const half = n / 2;
  for (const [v, c] of pairs) {
    seen += c;
    if (seen >= half) return v;
  }
  return pairs.length ? pairs[pairs.length - 1][0] : 0;
}

/** The median and MAD of a histogram (bins as the values' logarithms); n 0 for an empty one. */
export function valueStats(h: ValueHistogram): ValueStats {
  const pairs = [...h].filter(([, c]) => c > 0).sort((a, b) => a[0] - b[0]);
  const n = pairs.reduce((s, [, c]) => s + c, 0);
  if (!n) return { n: 0, median: 0, madLog: logRatio };
  const medianBin = weightedMedian(pairs, n);
  const deviations = pairs.map(([b, c]) => [Math.abs(b - medianBin), c] as const).sort((a, b) => a[0] - b[0]);
  const madBins = weightedMedian(deviations, n);
  return { n, median: binValue(medianBin), madLog: Math.max(1, madBins) * logRatio };
}

/** The robust z of a unit value against the stats: 0.6745 (ln value - ln median) / MAD. */
export const robustZ = (usd: number, s: ValueStats): number => (0.6745 * (Math.log(usd) - Math.log(s.median))) / s.madLog;

const usdText = (n: number, locale: 'es' | 'en') =>
  `USD ${n.toLocaleString(locale === 'es' ? 'es-AR' : 'en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/**
 * The under-valuation flag of one product, or null: the NCM's history holds at least
 * `undervaluation_min_sample` values, the unit value is at most `undervaluation_max_share_of_median`
 * of their median, and its robust z is at or below minus `undervaluation_robust_z`.
 */
export function underValuation(ncm: string, unitUsd: number, stats: ValueStats | undefined, rules: RiskRules): RiskFlag | null {
  if (!stats || stats.n < rules.undervaluation_min_sample || !(unitUsd > 0) || !(stats.median > 0)) return null;
  if (unitUsd > stats.median * rules.undervaluation_max_share_of_median) return null;
  const z = robustZ(unitUsd, stats);
  if (z > -rules.undervaluation_robust_z) return null;
  const share = Math.round((unitUsd / stats.median) * 100);
  const zText = Math.abs(z).toFixed(1);
  return {
    code: 'under_valuation',
    reason: `FOB por unidad ${usdText(unitUsd, 'es')}, ${share}% de la mediana de la NCM ${ncm} en este servicio (${usdText(stats.median, 'es')}, ${stats.n} valores): ${zText.replace('.', ',')} MAD por debajo (umbral ${String(rules.undervaluation_robust_z).replace('.', ',')}).`,
    reason_en: `FOB per unit ${usdText(unitUsd, 'en')}, ${share}% of NCM ${ncm}'s median in this service (${usdText(stats.median, 'en')}, ${stats.n} values): ${zText} MADs below (threshold ${rules.undervaluation_robust_z}).`,
    norm: riskRuleCatalog.under_valuation.norm,
  };
}

/** The 8 digits of an NCM (its history's key), or null for a code without 8. */
export function ncmKey(code: string | null | undefined): string | null {
  const digits = (code ?? '').replace(/\D/g, '');
  return digits.length >= 8 ? digits.slice(0, 8) : null;
}

// ---------------------------------------------------------------------------------------------
// The flight

/** Values summed in units of 0.0001 USD, as the regime sums them (no float drift decides a limit). */
const SCALE = 10_000;
const scaled = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n * SCALE) : 0);

/** A consignee as one of its keys knows it: the key, and how a reason names it. Shared by every AWB with the same key. */
export interface ConsigneePart {
  key: string;
  label: string;
}

/** What the flight keeps of one AWB: small, and stored with the results so a partial re-run sees the whole flight. */
export interface AwbRisk {
  /** The consignee by its tax id (`T:` key, the tax id as a reason names it), or null. */
  tax: ConsigneePart | null;
  /** The consignee by its name and address (`N:` key), or null without an address. */
  place: ConsigneePart | null;
  /** FOB, in 0.0001 USD. */
  fob: number;
  /** Units by kind. */
  kinds: Record<string, number>;
  /** `reserved`: took a personal slot; `used_up`: found the year's quota used up. */
  quota: 'reserved' | 'used_up' | null;
}

/** A flight's AWBs as the rules read them, by AWB. */
export type FlightRisk = Record<string, AwbRisk>;

/**
 * The flight's AWBs as the rules read them while they are added: the entries by AWB, and the
 * consignees' parts and the kinds as computed, by the item's raw fields (a flight repeats them:
 * one check of a tax id, one folding of a name or a description; a consignee on 100,000 AWBs
 * holds its texts once).
 */
export class Flight {
  readonly awbs = new Map<string, AwbRisk>();
  private readonly taxes = new Map<string, ConsigneePart | null>();
  private readonly places = new Map<string, ConsigneePart | null>();
  private readonly kindsOf = new Map<string, string[]>();

  /** The tax-id part of an item's consignee, or null without a tax id. */
  tax(d: RiskItem): ConsigneePart | null {
    if (!d.consigneeIdNumber) return null;
    const raw = `${d.consigneeIdType ?? ''}|${d.consigneeIdNumber}`;
    let part = this.taxes.get(raw);
    if (part === undefined) {
      const k = consigneeKeys({ consigneeName: '', consigneeIdType: d.consigneeIdType, consigneeIdNumber: d.consigneeIdNumber });
      part = k.keys.length && k.taxLabel ? { key: k.keys[0], label: k.taxLabel } : null;
      this.taxes.set(raw, part);
    }
    return part;
  }

  /** The name-and-address part of an item's consignee, or null without an address. */
  place(d: RiskItem): ConsigneePart | null {
    if (!d.consigneeAddress) return null;
    const raw = `${d.consigneeName}|${d.consigneeAddress}`;
    let part = this.places.get(raw);
    if (part === undefined) {
      const k = consigneeKeys({ consigneeName: d.consigneeName, consigneeAddress: d.consigneeAddress });
      part = k.keys.length ? { key: k.keys[0], label: `${d.consigneeName.trim()}, ${d.consigneeAddress.trim()}` } : null;
      this.places.set(raw, part);
    }
    return part;
  }

  /** The kinds of an item (`kindKeys`), one copy each. */
  kinds(d: RiskItem): string[] {
    const raw = `${d.hsCode ?? ''}|${d.itemDescription ?? d.itemName ?? ''}`;
    let k = this.kindsOf.get(raw);
    if (!k) this.kindsOf.set(raw, (k = kindKeys(d)));
    return k;
  }
}

/**
 * Adds one item to its AWB's entry, with the result the stages gave it. Cheap: the consignee's
 * parts are computed once per distinct tax id and name-and-address of the flight, a line's kinds
 * once per distinct description.
 */
export function addToFlight(flight: Flight, awb: string, d: RiskItem, r: RiskResult | undefined): void {
  let e = flight.awbs.get(awb);
  if (!e) flight.awbs.set(awb, (e = { tax: flight.tax(d), place: flight.place(d), fob: 0, kinds: {}, quota: null }));
  else {
    // A later line may bring what the first lacked.
    if (!e.tax && d.consigneeIdNumber) e.tax = flight.tax(d);
    if (!e.place && d.consigneeAddress) e.place = flight.place(d);
  }
  e.fob += scaled(d.fobValueUsd);
  const units = unitsOf(d);
  for (const kind of flight.kinds(d)) e.kinds[kind] = (e.kinds[kind] ?? 0) + units;
  if (r && typeof r.quota === 'number') {
    if (r.quota === 0 && r.tax_id_alert) e.quota = 'used_up';
    else if (!r.tax_id_alert && e.quota !== 'used_up') e.quota = 'reserved';
  }
}

const awbList = (awbs: readonly string[]) => (awbs.length <= 5 ? awbs.join(', ') : `${awbs.slice(0, 5).join(', ')} (+${awbs.length - 5})`);
const unitWord = { es: (n: number) => (n === 1 ? 'unidad' : 'unidades'), en: (n: number) => (n === 1 ? 'unit' : 'units') };

/** The split-shipment flags of one consignee's AWBs (two or more), or none. */
function splitFlags(label: string, awbs: readonly string[], entries: readonly AwbRisk[], rules: RiskRules): RiskFlag[] {
  let total = 0;
  let largest = 0;
  for (const e of entries) {
    total += e.fob;
    if (e.fob > largest) largest = e.fob;
  }
  const head = { es: `${label}: ${awbs.length} guías en este vuelo (${awbList(awbs)})`, en: `${label}: ${awbs.length} AWBs on this flight (${awbList(awbs)})` };
  const flags: RiskFlag[] = [];
  const money = (v: number, l: 'es' | 'en') => usdText(v / SCALE, l);
  const over = (limit: number) => total > limit * SCALE && largest <= limit * SCALE;
  if (over(rules.split_max_fob_usd)) {
    const limit = rules.split_max_fob_usd * SCALE;
    flags.push({
      code: 'split_over_courier_limit',
      reason: `${head.es} suman ${money(total, 'es')} FOB, sobre el límite de ${money(limit, 'es')} por envío del régimen courier; ninguna guía lo supera sola.`,
      reason_en: `${head.en} total ${money(total, 'en')} FOB, over the courier limit of ${money(limit, 'en')} per shipment; no AWB is over it alone.`,
      norm: riskRuleCatalog.split_over_courier_limit.norm,
    });
  } else if (over(rules.split_franchise_usd)) {
    const limit = rules.split_franchise_usd * SCALE;
    flags.push({
      code: 'split_over_franchise',
      reason: `${head.es} suman ${money(total, 'es')} FOB, sobre la franquicia de ${money(limit, 'es')}; ninguna guía la supera sola.`,
      reason_en: `${head.en} total ${money(total, 'en')} FOB, over the ${money(limit, 'en')} franchise; no AWB is over it alone.`,
      norm: riskRuleCatalog.split_over_franchise.norm,
    });
  }
  const max = rules.split_max_units_same_kind;
  const units = new Map<string, { total: number; largest: number }>();
  for (const e of entries) {
    for (const k in e.kinds) {
      const n = e.kinds[k];
      const u = units.get(k) ?? { total: 0, largest: 0 };
      u.total += n;
      u.largest = Math.max(u.largest, n);
      units.set(k, u);
    }
  }
  const kinds = [...units].filter(([, u]) => u.total > max && u.largest <= max);
  if (kinds.length) {
    const [kind, u] = kinds.reduce((a, b) => (b[1].total > a[1].total ? b : a));
    flags.push({
      code: 'split_over_units',
      reason: `${head.es} llevan ${u.total} ${unitWord.es(u.total)} de la misma especie ("${kind.slice(0, 60)}"), más de ${max}; ninguna guía supera ${max} sola.`,
      reason_en: `${head.en} carry ${u.total} ${unitWord.en(u.total)} of the same kind ("${kind.slice(0, 60)}"), more than ${max}; no AWB is over ${max} alone.`,
      norm: riskRuleCatalog.split_over_units.norm,
    });
  }
  return flags;
}

/** The quota flag of one tax id's AWBs in the flight: one took a slot and another found the year used up. */
function quotaFlag(label: string, awbs: readonly string[], entries: readonly AwbRisk[]): RiskFlag | null {
  const reserved = entries.filter((e) => e.quota === 'reserved').length;
  const usedUp = entries.filter((e) => e.quota === 'used_up').length;
  if (!reserved || !usedUp) return null;
  return {
    code: 'quota_ran_out_in_flight',
    reason: `${label}: el cupo anual de envíos personales se agotó en este vuelo: ${awbs.length} guías (${awbList(awbs)}), ${reserved} como personal${reserved === 1 ? '' : 'es'} y ${usedUp} ya sin cupo (comerciales).`,
    reason_en: `${label}: the yearly quota of personal shipments ran out on this flight: ${awbs.length} AWBs (${awbList(awbs)}), ${reserved} personal and ${usedUp} finding it used up (commercial).`,
    norm: riskRuleCatalog.quota_ran_out_in_flight.norm,
  };
}

/**
 * The flight's flags by AWB: every consignee key shared by two or more AWBs is judged once, its
 * flags given to each of its AWBs (a rule's code once per AWB). One pass over the AWBs to group
 * them, one over the groups. An AWB of one flagged group shares the group's list (read-only).
 */
export function flightFlags(flight: ReadonlyMap<string, AwbRisk> | FlightRisk, rules: RiskRules): Map<string, readonly RiskFlag[]> {
  const byAwb: ReadonlyMap<string, AwbRisk> = flight instanceof Map ? flight : new Map(Object.entries(flight));
  const groups = new Map<string, string[]>();
  const join = (part: ConsigneePart | null, awb: string) => {
    if (!part) return;
    const g = groups.get(part.key);
    if (g) g.push(awb);
    else groups.set(part.key, [awb]);
  };
  for (const [awb, e] of byAwb) {
    join(e.tax, awb);
    join(e.place, awb);
  }
  const out = new Map<string, readonly RiskFlag[]>();
  const give = (awbs: readonly string[], flags: readonly RiskFlag[]) => {
    if (!flags.length) return;
    for (const awb of awbs) {
      const had = out.get(awb);
      if (!had) out.set(awb, flags);
      else {
        const more = flags.filter((f) => !had.some((x) => x.code === f.code));
        if (more.length) out.set(awb, [...had, ...more]);
      }
    }
  };
  for (const [key, awbs] of groups) {
    if (awbs.length < 2) continue;
    awbs.sort();
    const es = awbs.map((a) => byAwb.get(a)!);
    const byTax = key.startsWith('T:');
    const label = byTax ? es[0].tax!.label : es[0].place!.label;
    const flags = splitFlags(label, awbs, es, rules);
    const q = byTax ? quotaFlag(label, awbs, es) : null;
    give(awbs, q ? [...flags, q] : flags);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Other couriers' flights

/** Kinds a summary keeps (the most units first): enough for the rule, bounded however varied the AWBs. */
export const seenKindsKept = 5;

/**
 * What one flight holds of one tax id, as other flights read it: small and bounded (a few hundred
 * bytes whatever the flight's size). FOB in 0.0001 USD; `kinds`: units by kind, [total, most in one AWB].
 */
export interface ConsigneeSeen {
  account: number;
  /** The run's date (YYYY-MM-DD, UTC). */
  day: string;
  awbs: number;
  fob: number;
  largest: number;
  kinds: Record<string, [number, number]>;
}

/** The tax-id groups of a flight: each tax key with its label and AWBs (single AWBs included). */
export function taxGroups(flight: ReadonlyMap<string, AwbRisk> | FlightRisk): Map<string, { label: string; awbs: string[] }> {
  const byAwb: ReadonlyMap<string, AwbRisk> = flight instanceof Map ? flight : new Map(Object.entries(flight));
  const out = new Map<string, { label: string; awbs: string[] }>();
  for (const [awb, e] of byAwb) {
    if (!e.tax) continue;
    const g = out.get(e.tax.key);
    if (g) g.awbs.push(awb);
    else out.set(e.tax.key, { label: e.tax.label, awbs: [awb] });
  }
  return out;
}

/** The summary of one tax id's AWBs of a flight. */
export function consigneeSeen(entries: readonly AwbRisk[], account: number, day: string): ConsigneeSeen {
  let fob = 0;
  let largest = 0;
  const kinds = new Map<string, [number, number]>();
  for (const e of entries) {
    fob += e.fob;
    if (e.fob > largest) largest = e.fob;
    for (const k in e.kinds) {
      const n = e.kinds[k];
      const u = kinds.get(k) ?? [0, 0];
      kinds.set(k, [u[0] + n, Math.max(u[1], n)]);
    }
  }
  const kept = [...kinds].sort((a, b) => b[1][0] - a[1][0] || (a[0] < b[0] ? -1 : 1)).slice(0, seenKindsKept);
  return { account, day, awbs: entries.length, fob, largest, kinds: Object.fromEntries(kept.map(([k, u]) => [k.slice(0, 80), u])) };
}

/** A tax key's 32-bit hash (FNV-1a over its UTF-16 units): what the flights' lists of tax ids hold (infra/entities/risk-consignees.ts). */
export function taxKeyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The hashes of these keys, sorted and without repeats. */
export function sortedHashes(keys: Iterable<string>): Uint32Array {
  return Uint32Array.from(new Set([...keys].map(taxKeyHash))).sort();
}

/** Whether a sorted list of hashes holds `h` (binary search). */
export function holdsHash(sorted: Uint32Array, h: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] === h) return true;
    if (sorted[mid] < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** The days (YYYY-MM-DD) of the window of `days` days ending on `at`'s date, the latest first. */
export function windowDays(at: Date | string, days: number): string[] {
  const d = new Date(at);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return Array.from({ length: days }, (_, k) => new Date(end - k * 86_400_000).toISOString().slice(0, 10));
}

/** The first day (YYYY-MM-DD) of the window of `days` days ending on `at`'s date. */
export const windowStart = (at: Date | string, days: number): string => windowDays(at, days)[days - 1];

/** What counts against a flight: other accounts' flights (this account's own are judged each in its flight), within the window. */
export function othersInWindow<T extends { account: number; day: string }>(seen: Iterable<T>, account: number, from: string): T[] {
  return [...seen].filter((s) => s.account !== account && s.day >= from);
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The `split_across_couriers` flag of one tax id, or null: this flight's AWBs of it (`mine`) and
 * other couriers' (`others`, already filtered by `othersInWindow`), every AWB within a limit and
 * all of them together over it (the courier limit, else the franchise; and the units of a kind).
 */
export function acrossCouriers(label: string, mine: ConsigneeSeen, others: readonly ConsigneeSeen[], rules: RiskRules): RiskFlag | null {
  if (!others.length) return null;
  let total = mine.fob;
  let largest = mine.largest;
  let awbs = mine.awbs;
  const couriers = new Set<number>();
  const units = new Map<string, [number, number]>(Object.entries(mine.kinds));
  for (const o of others) {
    total += o.fob;
    largest = Math.max(largest, o.largest);
    awbs += o.awbs;
    couriers.add(o.account);
    for (const [k, [n, most]] of Object.entries(o.kinds)) {
      const u = units.get(k) ?? [0, 0];
      units.set(k, [u[0] + n, Math.max(u[1], most)]);
    }
  }
  const theirs = awbs - mine.awbs;
  const money = (v: number, l: 'es' | 'en') => usdText(v / SCALE, l);
  const over = (limit: number) => total > limit * SCALE && largest <= limit * SCALE;
  const es: string[] = [];
  const en: string[] = [];
  if (over(rules.split_max_fob_usd)) {
    es.push(`suman ${money(total, 'es')} FOB, sobre el límite de ${money(rules.split_max_fob_usd * SCALE, 'es')} por envío del régimen courier`);
    en.push(`total ${money(total, 'en')} FOB, over the courier limit of ${money(rules.split_max_fob_usd * SCALE, 'en')} per shipment`);
  } else if (over(rules.split_franchise_usd)) {
    es.push(`suman ${money(total, 'es')} FOB, sobre la franquicia de ${money(rules.split_franchise_usd * SCALE, 'es')}`);
    en.push(`total ${money(total, 'en')} FOB, over the ${money(rules.split_franchise_usd * SCALE, 'en')} franchise`);
  }
  const max = rules.split_max_units_same_kind;
  const kinds = [...units].filter(([, [n, most]]) => n > max && most <= max);
  if (kinds.length) {
    const [kind, [n]] = kinds.reduce((a, b) => (b[1][0] > a[1][0] ? b : a));
    es.push(`llevan ${n} ${unitWord.es(n)} de la misma especie ("${kind.slice(0, 60)}"), más de ${max}`);
    en.push(`carry ${n} ${unitWord.en(n)} of the same kind ("${kind.slice(0, 60)}"), more than ${max}`);
  }
  if (!es.length) return null;
  const days = rules.cross_courier_window_days;
  return {
    code: 'split_across_couriers',
    reason: `${label}: ${count(mine.awbs, 'guía', 'guías')} en este vuelo y ${count(theirs, 'guía', 'guías')} de ${couriers.size === 1 ? 'otro courier' : `${couriers.size} otros couriers`} en los últimos ${days} días ${es.join(' y ')}; ninguna guía lo supera sola.`,
    reason_en: `${label}: ${count(mine.awbs, 'AWB', 'AWBs')} on this flight and ${count(theirs, 'AWB', 'AWBs')} of ${couriers.size === 1 ? 'another courier' : `${couriers.size} other couriers`} in the last ${days} days ${en.join(' and ')}; no AWB is over it alone.`,
    norm: riskRuleCatalog.split_across_couriers.norm,
  };
}

/** The summary's count of flags: products with any, flags in all, by rule. */
export interface RiskTally {
  products: number;
  total: number;
  by_rule: Partial<Record<RiskCode, number>>;
}

export const emptyRiskTally = (): RiskTally => ({ products: 0, total: 0, by_rule: {} });

export function tallyRisk(t: RiskTally, flags: readonly { code: string }[] | undefined): void {
  if (!flags?.length) return;
  t.products++;
  t.total += flags.length;
  for (const f of flags) t.by_rule[f.code as RiskCode] = (t.by_rule[f.code as RiskCode] ?? 0) + 1;
}
