import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { openedCursor, signedMeta } from '#services/cursors';
import { batchQueue } from '#services/review/review';
import { ReviewBatches } from '#catalog/review';

/** GET /v1/couriers/review/batches: the broker's queue of every account's batches. */
export const handler = route(ReviewBatches.schemas, async ({ query }) => {
  const { data, meta } = await batchQueue({ cursor: await openedCursor(query.cursor), perPage: query.per_page, status: query.status });
  return ok(data, { extra: { meta: await signedMeta(meta, query.cursor) } });
});
