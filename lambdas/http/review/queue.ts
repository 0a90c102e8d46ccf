import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { signedMeta } from '#services/cursors';
import { batchMeta, reviewQueue } from '#services/review/review';
import { ReviewQueue } from '#catalog/review';

/** GET .../review: one page of the batch's review queue. */
export const handler = route(ReviewQueue.schemas, async ({ params, query, principal }) => {
  const { batch, data, meta } = await reviewQueue(principal, params.manifest, { cursor: query.cursor, perPage: query.per_page });
  return ok(data, { extra: { meta: { ...(await signedMeta(meta, query.cursor)), ...(await batchMeta(batch)) } } });
});
