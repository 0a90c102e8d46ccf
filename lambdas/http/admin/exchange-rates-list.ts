import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { listExchangeRates, rateView } from '#services/customs/exchange-rates';
import { AdminExchangeRatesList } from '#catalog/admin';

/** GET: the stored rates of a range of days. A module of its own, without the setting's hand-over to the pipeline (issue 46). */
export const handler = route(AdminExchangeRatesList.schemas, async ({ query }) => {
  const rates = await listExchangeRates(query.from, query.to);
  return ok(rates.map(rateView), { extra: { count: rates.length } });
});
