import { isConditionalFailure } from './entity';
import { exchangeRates, type ExchangeRateItem } from './exchange-rates/exchange-rate';
import type { ExchangeRate, ExchangeRates, RateAnswer } from '#core/customs/exchange-rate';

/** Every stored rate is of USD (ARS per USD). */
const currency = 'USD';

export interface StoredRate extends ExchangeRate {
  setAt: string;
  setBy: string | null;
}

const view = (item: ExchangeRateItem): StoredRate => ({ rate: item.rate, date: item.date, source: item.source, setAt: item.setAt, setBy: item.setBy ?? null });

export async function getStoredRate(date: string): Promise<StoredRate | null> {
  const res = await exchangeRates().get({ currency, date }).go({ consistent: true });
  return res.data ? view(res.data) : null;
}

/**
 * Stores a day's rate once: a conditional create, so a repeat (the same rate again) writes nothing.
 * Answers `created` for the first write, `unchanged` when that day already holds this rate, and
 * `conflict` with the rate it holds when it holds another one (a stored day is never overwritten:
 * the batches processed with it name it).
 */
export async function storeRate(
  input: { date: string; rate: string; source: string; setAt: string; setBy?: string },
): Promise<{ outcome: 'created' | 'unchanged' | 'conflict'; stored: StoredRate }> {
  try {
    await exchangeRates().create({ currency, ...input }).go();
    return { outcome: 'created', stored: { rate: input.rate, date: input.date, source: input.source, setAt: input.setAt, setBy: input.setBy ?? null } };
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    const stored = (await getStoredRate(input.date))!;
    return { outcome: stored.rate === input.rate ? 'unchanged' : 'conflict', stored };
  }
}

/** The stored rates of the days from `from` to `to` (YYYY-MM-DD, both included), in date order. */
export async function listStoredRates(from: string, to: string): Promise<StoredRate[]> {
  const res = await exchangeRates().query.byDay({ currency }).between({ date: from }, { date: to }).go({ pages: 'all' });
  return res.data.map(view);
}

/** The port over the stored rates: the rate of exactly that day, or missing (the twin's source, and the deployed stage's fallback). */
export const storedExchangeRates: ExchangeRates = {
  async rateFor(date: string): Promise<RateAnswer> {
    const stored = await getStoredRate(date);
    if (!stored) return { found: false, date, reason: `No exchange rate is stored for ${date}.` };
    return { found: true, rate: { rate: stored.rate, date: stored.date, source: stored.source } };
  },
};
