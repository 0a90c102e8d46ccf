import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { signedMeta } from '#services/cursors';
import { reviewDecisions } from '#services/review/review';
import { ReviewDecisions } from '#catalog/review';

export const handler = route(ReviewDecisions.schemas, async ({ params, query, principal }) => {
  const { data, meta } = await reviewDecisions(principal, params.manifest, query.cursor, query.per_page);
  return ok(data, { extra: { meta: await signedMeta(meta, query.cursor) } });
});
