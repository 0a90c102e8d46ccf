import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { openedCursor, signedMeta } from '#services/cursors';
import { inbox } from '#services/review/inbox';
import { ReviewInbox } from '#catalog/review';

/** GET /v1/couriers/review/inbox: what needs the broker's action, across every courier. */
export const handler = route(ReviewInbox.schemas, async ({ query, principal }) => {
  const { data, meta } = await inbox(principal, { since: query.since, cursor: await openedCursor(query.cursor), perPage: query.per_page });
  return ok(data, { extra: { meta: await signedMeta(meta, query.cursor) } });
});
