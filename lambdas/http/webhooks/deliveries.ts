import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { deliveriesOf, deliveryView } from '#services/webhooks/webhooks';
import { paginate } from '../kit/paginate';
import { WebhooksDeliveries } from '#catalog/webhooks';

/** The delivery log, newest first. */
export const handler = route(WebhooksDeliveries.schemas, async ({ params, query, principal }) => {
  const all = (await deliveriesOf(principal, params.id)).filter((d) => !query.state || d.state === query.state);
  const { page, meta } = paginate(all, query.page, query.per_page);
  return ok(page.map(deliveryView), { extra: { meta } });
});
