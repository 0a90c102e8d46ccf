import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { decisionLog } from '#services/manifests/tracking';
import { CouriersDecisions } from '#catalog/manifests';

export const handler = route(CouriersDecisions.schemas, async ({ params, query, principal }) => {
  const { data, meta } = await decisionLog(principal, params.manifest, params.batch, query.page, query.per_page);
  return ok(data, { extra: { meta } });
});
