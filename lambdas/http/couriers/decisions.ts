import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { decisionLog } from '../../services/manifests/tracking';
import { couriersRoutes } from './routes';

export const handler = route(couriersRoutes.CouriersDecisions.schemas, async ({ params, query, principal }) => {
  const { data, meta } = await decisionLog(principal, params.manifest, params.batch, query.page, query.per_page);
  return ok(data, { extra: { meta } });
});
