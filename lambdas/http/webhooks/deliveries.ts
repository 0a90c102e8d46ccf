import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { deliveriesOf, deliveryView } from '../../services/webhooks/webhooks';
import { DeliveriesQuery } from './schemas';
import { paginate } from '../kit/paginate';

/** The delivery log, newest first. */
export const handler = route({ params: IdParams, query: DeliveriesQuery }, async ({ params, query, principal }) => {
  const all = (await deliveriesOf(principal, params.id)).filter((d) => !query.state || d.state === query.state);
  const { page, meta } = paginate(all, query.page, query.per_page);
  return ok(page.map(deliveryView), { extra: { meta } });
});
