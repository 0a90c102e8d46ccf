import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { search } from '#services/search/search';
import { ReviewSearch } from '#catalog/review';

/** GET /v1/couriers/review/search: one field finds batches, AWBs, tax ids, consignees, products and documents across every account. */
export const handler = route(ReviewSearch.schemas, async ({ query }) => {
  return ok(await search({ q: query.q, kind: query.kind, perPage: query.per_page, cursor: query.cursor }));
});
