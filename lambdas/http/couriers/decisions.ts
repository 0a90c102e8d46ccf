import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { decisionLog } from '../../services/manifests/tracking';
import { DecisionsParams, DecisionsQuery } from './schemas';

export const handler = route({ params: DecisionsParams, query: DecisionsQuery }, async ({ params, query, principal }) => {
  const { data, meta } = await decisionLog(principal, params.manifest, params.batch, query.page, query.per_page);
  return ok(data, { extra: { meta } });
});
