import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { paginate } from '../kit/paginate';
import { listManifests } from '#services/manifests/tracking';
import { CouriersManifests } from '#catalog/manifests';

export const handler = route(CouriersManifests.schemas, async ({ query, principal }) => {
  const all = await listManifests(principal, { status: query.status, dateFrom: query.date_from, dateTo: query.date_to });
  const { page, meta } = paginate(all, query.page, query.per_page);
  return ok(page, { extra: { meta } });
});
