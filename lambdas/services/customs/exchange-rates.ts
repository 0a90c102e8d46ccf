import { argentineDateOf, parseRate, type ExchangeRates } from '#core/customs/exchange-rate';
import { Conflict, ValidationFailed } from '#core/errors';
import { now, nowIso } from '#infra/clock';
import { getStoredRate, listStoredRates, storeRate, type StoredRate } from '#infra/entities/exchange-rates';
import { forgetPesosWaitDay, pesosWaitDaysAll, pesosWaitsOn } from '#infra/entities/pesos-waits';
import { officialExchangeRates, storedThenOfficial } from '#infra/exchange-rates/port';
import { requestPesosCompletion } from '#infra/pipeline';

/** The earliest day a rate may be set for: before it the service valued nothing. */
export const firstRateDay = '2000-01-01';
/** The most days one list answers. */
export const maxListDays = 366;

const DAY = 86_400_000;

/** A stored rate as the admin routes answer it. */
export const rateView = (r: StoredRate) => ({ date: r.date, rate: Number(r.rate), source: r.source, set_at: r.setAt, set_by: r.setBy });

/**
 * Sets the rate of `date` (checked: a real day, not after today in Argentina), once. The same rate
 * again answers `unchanged`; another rate for a day already set is a 409 naming the rate it holds.
 */
export async function setExchangeRate(date: string, rate: number, source: string, by: string) {
  const today = argentineDateOf(now());
  if (date > today) throw new ValidationFailed({ date: [`Must not be after today (${today}, Argentine calendar).`] });
  if (date < firstRateDay) throw new ValidationFailed({ date: [`Must be ${firstRateDay} or later.`] });
  const parsed = parseRate(rate);
  if (!parsed.ok) throw new ValidationFailed({ rate: [parsed.reason] });
  const { outcome, stored } = await storeRate({ date, rate: parsed.rate, source, setAt: nowIso(), setBy: by });
  if (outcome === 'conflict') {
    throw new Conflict(`The rate of ${date} is already set to ${stored.rate} (${stored.source}); a day's rate is set once, since the batches processed with it name it.`);
  }
  // The batches that completed waiting for this day's rate get their pesos (again on a repeat of
  // the same rate: a repeat finds only the batches that still wait).
  await handOverWaiting(date);
  return { outcome, stored };
}

/** Asks for the pesos of the batches still waiting for the rate of `date`, now stored; answers how many. */
async function handOverWaiting(date: string): Promise<number> {
  const waiting = await pesosWaitsOn(date);
  if (waiting.length) await requestPesosCompletion(date, waiting);
  return waiting.length;
}

/** What one scheduled retry did, day by day (the worker logs it). */
export interface RateRetry {
  /** Days whose rate the official source answered now: stored, their batches handed over. */
  fetched: string[];
  /** Days whose rate was already stored (set by an operator, or by a batch's or a retry's fetch) with batches still waiting: handed over. */
  handedOver: string[];
  /** Days whose rate is stored and no batch waits for any more: forgotten. */
  done: string[];
  /** Days whose rate was stored less than `handOverGraceMinutes` ago: whoever stored it is handing their batches over. */
  justSet: string[];
  /** Days still without a rate, with the reason (the official source's, or that the stage has none). */
  missing: { date: string; reason: string }[];
}

/**
 * How long after a day's rate is stored the retry leaves that day's batches to whoever stored it
 * (the PUT, or a fetch), whose hand-over is under way: handing them over again then would ask for
 * their pesos twice. A batch still waiting after it missed that hand-over (its run read the rate
 * before it was stored and finished after) or its pesos run failed: the retry hands it over.
 */
export const handOverGraceMinutes = 10;

/**
 * The scheduled retry (docs/operators/exchange-rates.md): for every day some batch waits for, the
 * stored rate, else the official source's, asked again. A rate it answers is stored as the first
 * fetch stores it (a conditional create, source `bcra`: `storedThenOfficial`), whose writer hands the
 * day's batches over; one stored before `handOverGraceMinutes` hands the batches still waiting over
 * as setting that rate again does. A concurrent PUT or a second run of the retry loses the
 * conditional create, or finds the rate just set, and hands over nothing more. The official source is the stage's: none on the twin, where days without a
 * stored rate are left as they are.
 */
export async function retryMissingRates(official: ExchangeRates | null = officialExchangeRates()): Promise<RateRetry> {
  const done: RateRetry = { fetched: [], handedOver: [], done: [], justSet: [], missing: [] };
  const graceFrom = now().getTime() - handOverGraceMinutes * 60_000;
  for (const day of await pesosWaitDaysAll()) {
    const stored = await getStoredRate(day.date);
    if (stored && Date.parse(stored.setAt) > graceFrom) {
      done.justSet.push(day.date);
      continue;
    }
    if (stored) {
      if (await handOverWaiting(day.date)) done.handedOver.push(day.date);
      else if (await forgetPesosWaitDay(day)) done.done.push(day.date);
      continue;
    }
    if (!official) {
      done.missing.push({ date: day.date, reason: 'No official source on this stage (the twin): set the rate with PUT /v1/admin/exchange-rates/{date}.' });
      continue;
    }
    const answer = await storedThenOfficial(official).rateFor(day.date);
    if (answer.found) done.fetched.push(day.date);
    else done.missing.push({ date: day.date, reason: answer.reason });
  }
  return done;
}

/** The stored rates from `from` to `to` (both included). */
export async function listExchangeRates(from: string, to: string): Promise<StoredRate[]> {
  if (from > to) throw new ValidationFailed({ to: ['Must be on or after from.'] });
  if ((Date.parse(to) - Date.parse(from)) / DAY + 1 > maxListDays) throw new ValidationFailed({ to: [`Must be at most ${maxListDays} days after from, both included.`] });
  return listStoredRates(from, to);
}
