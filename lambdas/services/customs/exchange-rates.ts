import { argentineDateOf, parseRate } from '#core/customs/exchange-rate';
import { Conflict, ValidationFailed } from '#core/errors';
import { now, nowIso } from '#infra/clock';
import { listStoredRates, storeRate, type StoredRate } from '#infra/entities/exchange-rates';
import { pesosWaitsOn } from '#infra/entities/pesos-waits';
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
  const waiting = await pesosWaitsOn(date);
  if (waiting.length) await requestPesosCompletion(date, waiting);
  return { outcome, stored };
}

/** The stored rates from `from` to `to` (both included). */
export async function listExchangeRates(from: string, to: string): Promise<StoredRate[]> {
  if (from > to) throw new ValidationFailed({ to: ['Must be on or after from.'] });
  if ((Date.parse(to) - Date.parse(from)) / DAY + 1 > maxListDays) throw new ValidationFailed({ to: [`Must be at most ${maxListDays} days after from, both included.`] });
  return listStoredRates(from, to);
}
