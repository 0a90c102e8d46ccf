/**
 * Amounts in pesos: which day's exchange rate applies and how a USD amount becomes pesos, to the
 * centavo. The norm and what is assumed: docs/spec/customs-ar.md, "The exchange rate".
 *
 * - The rate is the Banco de la Nación Argentina selling rate (ARS per USD) of the business day
 *   before the day the amounts are fixed (the day the batch is processed, Argentine calendar, UTC-3).
 * - Business days: Monday to Friday, less the national holidays known as data (`fixedHolidays`, the
 *   ones that follow Easter, and `extraHolidays` given by the caller).
 * - A peso amount is its USD cents x the rate, rounded once, half up, to the centavo (`usdToArs`).
 * - Rates come through the `ExchangeRates` port: an answer names the rate, its date and its source,
 *   or says the rate is missing. A missing rate is never guessed.
 *
 * Pure: no clock, no I/O.
 */
import { DATE, argentineDay, isCalendarDate } from './argentine-calendar';
import { divRound, formatDec, parseDec, toCents, toCentsExact, toNumber, type Cents, type Dec } from './money';

/** What a rate says: ARS per USD, as the exact decimal text (e.g. '1370.5'). */
export interface ExchangeRate {
  /** ARS per 1 USD, exact decimal text, > 0, at most 6 decimals. */
  rate: string;
  /** The business day the rate is of, YYYY-MM-DD (Argentine calendar). */
  date: string;
  /** Where it came from: 'bcra' (the official public source), 'operator' (set by hand), or the operator's own words. */
  source: string;
}

/** The answer of the port for one day: the rate, or why there is none. */
export type RateAnswer = { found: true; rate: ExchangeRate } | { found: false; date: string; reason: string };

/**
 * Where exchange rates come from (a port: the stored rates of the table, the BCRA's public API).
 * `rateFor(date)` answers the rate of exactly that day, never another day's.
 */
export interface ExchangeRates {
  rateFor(date: string): Promise<RateAnswer>;
}

export { isCalendarDate };

/** The calendar date in Argentina of an instant (argentine-calendar.ts). '2025-03-10T02:00:00Z' -> '2025-03-09'. */
export const argentineDateOf = argentineDay;

/** Holidays on the same day every year (MM-DD): the national holidays that never move. */
export const fixedHolidays: readonly string[] = ['01-01', '03-24', '04-02', '05-01', '05-25', '06-20', '07-09', '12-08', '12-25'];

const DAY = 86_400_000;
const utc = (date: string): number => Date.parse(`${date}T00:00:00Z`);
const dateOfUtc = (t: number): string => new Date(t).toISOString().slice(0, 10);

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm), YYYY-MM-DD. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The holidays that follow Easter: Carnival Monday and Tuesday (48 and 47 days before), Good Friday (2 days before). */
export function easterHolidays(year: number): string[] {
  const easter = utc(easterSunday(year));
  return [48, 47, 2].map((n) => dateOfUtc(easter - n * DAY));
}

/** True when banks publish a rate that day: Monday to Friday and not a holiday known here (nor one of `extraHolidays`). */
export function isBusinessDay(date: string, extraHolidays: readonly string[] = []): boolean {
  if (!isCalendarDate(date)) throw new RangeError(`date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
  const weekday = new Date(utc(date)).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  if (fixedHolidays.includes(date.slice(5))) return false;
  if (easterHolidays(Number(date.slice(0, 4))).includes(date)) return false;
  return !extraHolidays.includes(date);
}

/**
 * The day whose rate applies to amounts fixed at `at` (an instant, read on the Argentine calendar,
 * or a YYYY-MM-DD date): the business day before. A Monday's amounts take Friday's rate; the
 * amounts of the day after a holiday take the rate of the business day before the holiday.
 */
export function rateDayFor(at: Date | string, extraHolidays: readonly string[] = []): string {
  const day = typeof at === 'string' && DATE.test(at) ? at : argentineDateOf(at);
  if (!isCalendarDate(day)) throw new RangeError(`date must be YYYY-MM-DD, got ${JSON.stringify(at)}`);
  let t = utc(day) - DAY;
  // At most a couple of weeks back: no run of non-business days is longer.
  for (let n = 0; n < 15; n++, t -= DAY) {
    const candidate = dateOfUtc(t);
    if (isBusinessDay(candidate, extraHolidays)) return candidate;
  }
  throw new RangeError(`no business day in the 15 days before ${day}`);
}

/**
 * How often a deployed stage asks the BCRA again for the days batches wait for
 * (docs/operators/exchange-rates.md): every hour on the clock. A missing rate is mostly the
 * source not answering (an error, a timeout), which an hour usually outlasts; a batch then waits
 * an hour at most once the source is back, at one request per waiting day and tick.
 */
export const rateRetryEveryMinutes = 60;

/** The most a rate may say (ARS per USD) and its most decimals: a bound on hostile input, far above any real rate. */
export const maxRate = 1_000_000;
export const maxRateDecimals = 6;

/**
 * A rate as given (a JSON number or decimal text) checked and written as exact decimal text, or the
 * reason it is refused: > 0, at most `maxRate`, at most `maxRateDecimals` decimals.
 */
export function parseRate(x: unknown): { ok: true; rate: string } | { ok: false; reason: string } {
  if (typeof x !== 'number' && typeof x !== 'string') return { ok: false, reason: 'Must be a number.' };
  let d: Dec;
  try {
    d = parseDec(x);
  } catch {
    return { ok: false, reason: 'Must be a number.' };
  }
  if (d.units <= 0n) return { ok: false, reason: 'Must be greater than 0.' };
  if (d.scale > maxRateDecimals) return { ok: false, reason: `Must have at most ${maxRateDecimals} decimals.` };
  if (d.units > BigInt(maxRate) * 10n ** BigInt(d.scale)) return { ok: false, reason: `Must be at most ${maxRate}.` };
  return { ok: true, rate: formatDec(d) };
}

/**
 * USD cents as ARS centavos at `rate` (ARS per USD, decimal text): cents x rate, rounded once,
 * half up, to the centavo. 1999n at '1370.25' -> 2739130n (19.99 x 1370.25 = 27391.2975 -> 27391.30).
 */
export function usdToArs(usdCents: Cents, rate: string): Cents {
  const r = parseDec(rate);
  if (r.units <= 0n) throw new RangeError(`rate must be > 0, got ${rate}`);
  return divRound(usdCents * r.units, 10n ** BigInt(r.scale));
}

/** The reason a batch waits for its rate, in words an operator can act on. */
export function missingRateReason(date: string): string {
  return `Waiting for the exchange rate of ${date} (Banco Nación selling rate, the business day before processing): set it with PUT /v1/admin/exchange-rates/${date}.`;
}

/** The amounts of a product's breakdown (core/customs/calculate.ts `Breakdown`) that are shown in pesos too. */
export const breakdownPesoKeys = ['fob_value', 'freight', 'insurance', 'cif_value', 'duty_base', 'customs_duty', 'statistics_fee', 'vat_base', 'vat', 'ddp_value', 'amount_to_pay'] as const;
/** The amounts of a shipment's or batch's totals (`ShipmentTotals`) that are shown in pesos too. */
export const totalsPesoKeys = ['fob', 'freight', 'insurance', 'cif', 'customs_duty', 'statistics_fee', 'vat', 'ddp', 'amount_to_pay'] as const;

/** The rate as an answer shows it beside the amounts it converted. */
export type RateShown = { rate: number; date: string; source: string };

/**
 * The `keys` of `amounts` (USD, JSON numbers with at most 2 decimals) in pesos, each as `<key>_ars`
 * (its cents x the rate, rounded once, half up: `usdToArs`), with the rate that converted them.
 * A sum in pesos is the USD sum converted, never the sum of converted parts, so every figure agrees
 * with its dollars at the rate shown.
 */
export function inPesos<K extends string>(
  amounts: Readonly<Record<K, number>>,
  keys: readonly K[],
  rate: ExchangeRate,
): { [P in K as `${P}_ars`]: number } & { exchange_rate: RateShown } {
  const out: Record<string, unknown> = {};
  for (const k of keys) out[`${k}_ars`] = toNumber(usdToArs(toCentsExact(amounts[k]), rate.rate));
  out.exchange_rate = { rate: Number(rate.rate), date: rate.date, source: rate.source };
  return out as { [P in K as `${P}_ars`]: number } & { exchange_rate: RateShown };
}

/** The amounts of a processed product (core/manifests/views.ts) that are shown in pesos too, each as `<key>_ars`. */
export const productPesoKeys = ['fob_value', 'cif_value', 'customs_duty', 'statistics_fee', 'vat', 'ddp_value', 'amount_to_pay'] as const;
export type ProductPesoKey = (typeof productPesoKeys)[number];
/** A processed product's amounts in pesos and the rate that converted them; all null while the batch waits for its rate. */
export type ProductPesos = { [P in ProductPesoKey as `${P}_ars`]: number | null } & { exchange_rate: RateShown | null };

/** The rate as a product or summary shows it, back as the port's `ExchangeRate` (to convert amounts a broker's correction changed). */
export const rateOfShown = (shown: RateShown): ExchangeRate => ({ rate: String(shown.rate), date: shown.date, source: shown.source });

/**
 * A product's amounts (USD, any of them null) in pesos at `rate`: each `<key>_ars` is its cents x
 * the rate, rounded once, half up (`usdToArs`); null where the dollars are null. Without a rate (the
 * batch waits for it) every `_ars` is null and `exchange_rate` too: a missing rate is never guessed.
 */
export function productInPesos(amounts: Readonly<Partial<Record<ProductPesoKey, number | null>>>, rate: ExchangeRate | null): ProductPesos {
  const out: Record<string, unknown> = {};
  for (const k of productPesoKeys) {
    const usd = amounts[k];
    out[`${k}_ars`] = rate && typeof usd === 'number' && Number.isFinite(usd) ? toNumber(usdToArs(toCents(usd), rate.rate)) : null;
  }
  out.exchange_rate = rate ? { rate: Number(rate.rate), date: rate.date, source: rate.source } : null;
  return out as ProductPesos;
}

/** What a batch summary says of pesos: the total in pesos at the run's rate, or why it waits (`pesos_pending`). */
export type SummaryPesos =
  | { amount_to_pay_ars: number; exchange_rate: RateShown }
  | { amount_to_pay_ars: null; exchange_rate: null; pesos_pending: { date: string; reason: string; cause: string } };

/** The summary's pesos for a USD total in cents, from the port's answer for the run: the total converted once, or the reason it waits. */
export function summaryInPesos(amountToPayCents: Cents, answer: RateAnswer): SummaryPesos {
  if (!answer.found) return { amount_to_pay_ars: null, exchange_rate: null, pesos_pending: { date: answer.date, reason: missingRateReason(answer.date), cause: answer.reason } };
  const r = answer.rate;
  return { amount_to_pay_ars: toNumber(usdToArs(amountToPayCents, r.rate)), exchange_rate: { rate: Number(r.rate), date: r.date, source: r.source } };
}
