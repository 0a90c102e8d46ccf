import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { paginate } from '../kit/paginate';
import { listManifests } from '../../services/manifests/tracking';
import { ManifestListQuery } from './schemas';

export const handler = route({ query: ManifestListQuery }, async ({ query, principal }) => {
  const all = await listManifests(principal, { status: query.status, dateFrom: query.date_from, dateTo: query.date_to });
  const { page, meta } = paginate(all, query.page, query.per_page);
  return ok(page, { extra: { meta } });
});
