import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { listDeliveries } from '../../infra/entities/webhooks';
import { deliveryView, findSubscription } from '../../services/webhooks';
import { DeliveriesQuery } from './schemas';
import { paginate } from '../kit/paginate';

/** The delivery log, newest first. */
export const handler = route({ params: IdParams, query: DeliveriesQuery }, async ({ params, query, principal }) => {
  const sub = await findSubscription(principal, params.id);
  const all = (await listDeliveries(sub.id)).filter((d) => !query.state || d.state === query.state);
  const { page, meta } = paginate(all, query.page, query.per_page);
  return ok(page.map(deliveryView), { extra: { meta } });
});
