import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { created, ok } from '../kit/reply';
import { isCalendarDate } from '#core/customs/exchange-rate';
import { ValidationFailed } from '#core/errors';
import { listExchangeRates, rateView, setExchangeRate } from '#services/customs/exchange-rates';
import { AdminExchangeRatesList, AdminExchangeRatesPut } from '#catalog/admin';

/** Sets a day's exchange rate (ARS per USD) once; the same rate again is a 200 that changes nothing. */
const put = route(AdminExchangeRatesPut.schemas, async ({ params, body, principal }) => {
  if (!isCalendarDate(params.date)) throw new ValidationFailed({ date: ['Must be a date, YYYY-MM-DD.'] });
  const { outcome, stored } = await setExchangeRate(params.date, body.rate, body.source ?? 'operator', `${principal.tokenId} ${principal.tokenName}`);
  return outcome === 'created'
    ? created(rateView(stored), `Exchange rate of ${stored.date} set: ${stored.rate} ARS per USD.`)
    : ok(rateView(stored), { message: `The rate of ${stored.date} was already ${stored.rate}; nothing changed.` });
});

/** The stored rates of a range of days. */
const list = route(AdminExchangeRatesList.schemas, async ({ query }) => {
  const rates = await listExchangeRates(query.from, query.to);
  return ok(rates.map(rateView), { extra: { count: rates.length } });
});

export const handler = byMethod({ PUT: put, GET: list });
