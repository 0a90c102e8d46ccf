/**
 * The events feed: every event of an account, stored once as the envelope its deliveries send
 * (whatever the number of subscriptions, or none), kept 30 days, read in pages by cursor.
 */
import type { Principal } from '#core/auth/principal';
import { ValidationFailed } from '#core/errors';
import { decodeCursor, encodeCursor, feedExpiry, withinBytes, type FeedOrder } from '#core/webhooks/feed';
import { putFeedEvent, queryFeedEvents } from '#infra/entities/events';
import { now } from '#infra/clock';
import { openCursor, sealCursor } from '#infra/cursors';
import type { DomainEvent } from '#infra/events';

/** The body every delivery of the event sends (spec 2.10), and the feed answers. */
export function envelopeBody(event: DomainEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, data: event.data });
}

/** Writes the event to its account's feed once; a repeated write (a redelivered bus event) changes nothing. */
export function recordEvent(event: DomainEvent, body = envelopeBody(event)): Promise<boolean> {
  return putFeedEvent({
    accountId: event.account_id,
    eventId: event.id,
    eventType: event.type,
    createdAt: event.created_at,
    body,
    expiresAt: feedExpiry(event.created_at),
  });
}

export interface FeedPage {
  /** The envelopes, each as its deliveries send it. */
  events: unknown[];
  /** Where this page ends: pass it as `after` for the next page (or, oldest first, for what comes later). */
  nextCursor: string | null;
  hasMore: boolean;
}

/** A page of the caller's own account's events. */
export async function listEvents(principal: Principal, q: { after?: string; since?: string; types?: readonly string[]; limit: number; order: FeedOrder }): Promise<FeedPage> {
  if (q.since !== undefined && q.after !== undefined) throw new ValidationFailed({ since: ['Give since or after, not both: after goes on from a page, since starts at an instant.'] });
  if (q.since !== undefined && q.order !== 'asc') throw new ValidationFailed({ since: ['since pages oldest first: add order=asc.'] });
  // A cursor is the position's text signed (infra/cursors.ts): one changed or made up is refused.
  const opened = q.after === undefined ? undefined : await openCursor(q.after);
  const after = opened === undefined ? undefined : decodeCursor(opened);
  if (q.after !== undefined && !after) throw new ValidationFailed({ after: ['Is not a cursor this feed answered (meta.next_cursor); leave it out to start at the beginning.'] });
  // From an instant: past every event of the millisecond before it (no id sorts after U+FFFF).
  const from = q.since !== undefined ? { createdAt: new Date(Date.parse(q.since) - 1).toISOString(), eventId: '\uffff' } : after;
  const { events, more, resumeAt } = await queryFeedEvents({
    accountId: principal.accountId,
    order: q.order,
    limit: q.limit,
    after: from,
    types: q.types,
    nowSeconds: Math.floor(now().getTime() / 1000),
  });
  // A page ends early at its bytes' bound (an answer stops at 6 MB): it goes on after its last event.
  const kept = events.slice(0, withinBytes(events.map((e) => e.body)));
  const cut = kept.length < events.length;
  const last = kept.at(-1);
  return {
    events: kept.map((e) => JSON.parse(e.body) as unknown),
    // A read stopped by its bound resumes past what it read; an empty page that read everything
    // keeps the caller where it was, so a poller asks again from the same place.
    nextCursor: !cut && resumeAt ? await sealCursor(encodeCursor(resumeAt)) : last ? await sealCursor(encodeCursor(last)) : (q.after ?? null),
    hasMore: more || cut,
  };
}
