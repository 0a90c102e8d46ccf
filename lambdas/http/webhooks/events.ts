import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { listEvents } from '#services/webhooks/feed';
import { EventsList } from '#catalog/webhooks';

/** A page of the caller's account's events. */
export const handler = route(EventsList.schemas, async ({ query, principal }) => {
  const page = await listEvents(principal, { after: query.after, since: query.since, types: query.types, limit: query.limit, order: query.order });
  return ok(page.events, { extra: { meta: { next_cursor: page.nextCursor, has_more: page.hasMore, limit: query.limit, order: query.order } } });
});
