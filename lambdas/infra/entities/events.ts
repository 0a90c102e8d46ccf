import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';
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

/** Items one feed request reads at most (issue 41): a filtered page that finds too few stops here and says where. */
export const feedReadBound = 1000;

/** An event's position in the feed's sort key `EVT#<created_at>#<id>`. */
const positionOf = (sk: string): FeedPosition => {
  const [, createdAt, eventId] = sk.split('#');
  return { createdAt, eventId };
};

/**
 * Up to `limit` events of the account in `order`, after `after` (in that order), of `types`
 * when given, not yet expired at `nowSeconds`. Reads at most `feedReadBound` items: DynamoDB's
 * Limit is what the page still needs (unfiltered: one more than asked, to know whether more
 * follow) or, with `types`, 50 or the page's size, doubling at each read. `more` when at least one more may follow;
 * `resumeAt`, when the bound stopped the read before the page was full: where the next page
 * starts (past every item read, matched or not), so a rare type costs a bounded read per request.
 * `scanned`: the items read; `readUnits`: what DynamoDB counted for them (bench:events).
 */
export async function queryFeedEvents(q: {
  accountId: number;
  order: FeedOrder;
  limit: number;
  after?: FeedPosition;
  types?: readonly string[];
  nowSeconds: number;
}): Promise<{ events: FeedEvent[]; more: boolean; resumeAt?: FeedPosition; scanned: number; readUnits: number }> {
  const asc = q.order === 'asc';
  const values: Record<string, unknown> = { ':pk': `ACCOUNT#${q.accountId}#EVENTS`, ':now': q.nowSeconds };
  let keyCondition = '#pk = :pk AND begins_with(#sk, :evt)';
  if (q.after) {
    keyCondition = `#pk = :pk AND #sk ${asc ? '>' : '<'} :after`;
    values[':after'] = `EVT#${q.after.createdAt}#${q.after.eventId}`;
  } else values[':evt'] = 'EVT#';
  let filter = '#ttl > :now';
  if (q.types?.length) {
    q.types.forEach((t, i) => (values[`:t${i}`] = t));
    filter += ` AND #type IN (${q.types.map((_, i) => `:t${i}`).join(', ')})`;
  }
  const found: FeedEvent[] = [];
  let scanned = 0;
  let readUnits = 0;
  let start: Record<string, unknown> | undefined;
  // Filtered, a read asks for what the page still needs, at least 50, doubling each time.
  let ask = Math.max(50, q.limit + 1);
  do {
    const need = q.limit + 1 - found.length;
    const res = await documentClient().send(
      new QueryCommand({
        TableName: config.tableName(),
        KeyConditionExpression: keyCondition,
        FilterExpression: filter,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#ttl': 'ttl', ...(q.types?.length ? { '#type': 'eventType' } : {}) },
        ExpressionAttributeValues: values,
        ScanIndexForward: asc,
        Limit: Math.max(1, Math.min(q.types?.length ? ask : need, feedReadBound - scanned)),
        ExclusiveStartKey: start,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    scanned += res.ScannedCount ?? 0;
    readUnits += res.ConsumedCapacity?.CapacityUnits ?? 0;
    for (const item of res.Items ?? []) {
      found.push({
        accountId: Number(item.accountId),
        eventId: String(item.eventId),
        eventType: String(item.eventType),
        createdAt: String(item.createdAt),
        body: String(item.body),
        expiresAt: Number(item.ttl),
      });
    }
    start = res.LastEvaluatedKey;
    ask *= 2;
  } while (found.length <= q.limit && start && scanned < feedReadBound);
  const full = found.length > q.limit;
  const stopped = !full && start !== undefined;
  return {
    events: found.slice(0, q.limit),
    more: full || stopped,
    ...(stopped ? { resumeAt: positionOf(String(start!.sk)) } : {}),
    scanned,
    readUnits,
  };
}
