import { isConditionalFailure } from './entity';
import { feedEvents, type FeedEventItem } from './events/feed-event';
import type { FeedOrder, FeedPosition } from '#core/webhooks/feed';

/** One event of an account's feed: the envelope exactly as its deliveries send it. */
export type FeedEvent = FeedEventItem;

/** Stores the event once: false when it was already there (a redelivered bus event). */
export async function putFeedEvent(e: FeedEvent): Promise<boolean> {
  try {
    await feedEvents().create(e).go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * Up to `limit` events of the account in `order`, after `after` (in that order), of `types`
 * when given, not yet expired at `nowSeconds`; `more` when at least one more follows.
 */
export async function queryFeedEvents(q: {
  accountId: number;
  order: FeedOrder;
  limit: number;
  after?: FeedPosition;
  types?: readonly string[];
  nowSeconds: number;
}): Promise<{ events: FeedEvent[]; more: boolean }> {
  const base = feedEvents().query.byAccount({ accountId: q.accountId });
  const ranged = q.after ? (q.order === 'asc' ? base.gt(q.after) : base.lt(q.after)) : base;
  const filtered = ranged.where(({ expiresAt, eventType }, { gt, eq }) => {
    const live = gt(expiresAt, q.nowSeconds);
    if (!q.types?.length) return live;
    return `${live} AND (${q.types.map((t) => eq(eventType, t)).join(' OR ')})`;
  });
  // One more than asked says whether another page follows.
  const res = await filtered.go({ order: q.order, count: q.limit + 1, pages: 'all' });
  const events = res.data;
  return { events: events.slice(0, q.limit), more: events.length > q.limit };
}
