import type { ExchangeRates, RateAnswer } from '#core/customs/exchange-rate';
import { config } from '#shared/config';
import { nowIso } from '../clock';
import { storeRate, storedExchangeRates } from '../entities/exchange-rates';
import { pesosWaitsOn } from '../entities/pesos-waits';
import { requestPesosCompletion } from '../pipeline';
import { BcraExchangeRates } from './bcra';

/**
 * The stored rate of the day when there is one (the operator's, or one fetched before); else the
 * official source's, stored (a conditional create: two readers store it once) so every later batch
 * of that day names the same rate. The reader that stored it asks for the pesos of the batches that
 * completed waiting for that day (the source had not published it when they finished), as an
 * operator's PUT of the rate does: they complete with the next batch that reads the day's rate.
 */
export function storedThenOfficial(official: ExchangeRates): ExchangeRates {
  return {
    async rateFor(date: string): Promise<RateAnswer> {
      const stored = await storedExchangeRates.rateFor(date);
      if (stored.found) return stored;
      const fetched = await official.rateFor(date);
      if (!fetched.found) return { found: false, date, reason: `${stored.reason} ${fetched.reason}` };
      const { outcome, stored: kept } = await storeRate({ ...fetched.rate, setAt: nowIso() });
      if (outcome === 'created') {
        const waiting = await pesosWaitsOn(date);
        if (waiting.length) await requestPesosCompletion(date, waiting);
      }
      return { found: true, rate: { rate: kept.rate, date: kept.date, source: kept.source } };
    },
  };
}

/** The stage's official source: the BCRA's API in a deployed stage; none on the twin (stage local), which never calls the internet. */
export function officialExchangeRates(): ExchangeRates | null {
  return config.stage() === 'local' ? null : new BcraExchangeRates();
}

/** The stage's rates: on the twin only the stored ones; in a deployed stage, the stored ones then the BCRA's. */
export function exchangeRates(): ExchangeRates {
  const official = officialExchangeRates();
  return official ? storedThenOfficial(official) : storedExchangeRates;
}
