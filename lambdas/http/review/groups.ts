import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { signedMeta } from '#services/cursors';
import { reviewGroups } from '#services/review/groups';
import { batchMeta } from '#services/review/review';
import { ReviewGroups } from '#catalog/review';

/** GET .../review/groups: one page of the batch's review queue grouped by description and declared code. */
export const handler = route(ReviewGroups.schemas, async ({ params, query, principal }) => {
  const { batch, data, meta } = await reviewGroups(principal, params.manifest, { cursor: query.cursor, perPage: query.per_page });
  return ok(data, { extra: { meta: { ...(await signedMeta(meta, query.cursor)), ...(await batchMeta(batch)) } } });
});
