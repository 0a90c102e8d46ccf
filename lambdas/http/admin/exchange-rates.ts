import { route } from '../kit/route';
import { created, ok } from '../kit/reply';
import { isCalendarDate } from '#core/customs/exchange-rate';
import { ValidationFailed } from '#core/errors';
import { rateView, setExchangeRate } from '#services/customs/exchange-rates';
import { AdminExchangeRatesPut } from '#catalog/admin';

/** PUT: sets a day's exchange rate (ARS per USD) once; the same rate again is a 200 that changes nothing (the list is exchange-rates-list.ts). */
export const handler = route(AdminExchangeRatesPut.schemas, async ({ params, body, principal }) => {
  if (!isCalendarDate(params.date)) throw new ValidationFailed({ date: ['Must be a date, YYYY-MM-DD.'] });
  const { outcome, stored } = await setExchangeRate(params.date, body.rate, body.source ?? 'operator', `${principal.tokenId} ${principal.tokenName}`);
  return outcome === 'created'
    ? created(rateView(stored), `Exchange rate of ${stored.date} set: ${stored.rate} ARS per USD.`)
    : ok(rateView(stored), { message: `The rate of ${stored.date} was already ${stored.rate}; nothing changed.` });
});
