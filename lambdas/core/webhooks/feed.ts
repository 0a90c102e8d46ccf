/**
 * The events feed (GET /v1/events): each event of an account stored once, as the envelope its
 * deliveries send, and read back in pages. A page ends at a position, the cursor: where the
 * event sits in the feed's order (its `created_at`, then its `id`), opaque to callers.
 */

/** How long the feed keeps an event (DynamoDB TTL, as the delivery log). */
export const feedRetentionDays = 30;
export const feedMaxLimit = 100;
export const feedDefaultLimit = 20;
/**
 * The bytes of envelopes a page answers at most (a page always holds one): a Lambda answers at
 * most 6 MB, and an event's envelope at most 256 KB (EventBridge's bound), so a page of 100
 * events of an invalid-tax-id report in parts (about 100 KB each) would not fit. A page that
 * reaches it ends there, with `has_more` and the cursor of its last event.
 */
export const feedPageBytes = 4 * 1000 * 1000;

/** How many of `bodies` (in order) a page holds within `max` bytes: at least one. */
export function withinBytes(bodies: readonly string[], max = feedPageBytes): number {
  let bytes = 0;
  for (let n = 0; n < bodies.length; n++) {
    bytes += Buffer.byteLength(bodies[n]) + 1;
    if (n > 0 && bytes > max) return n;
  }
  return bodies.length;
}

export type FeedOrder = 'asc' | 'desc';

export interface FeedPosition {
  createdAt: string;
  eventId: string;
}

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const eventIdPattern = /^evt_[A-Za-z0-9_-]{1,100}$/;

/** The cursor of an event's position: base64url of `<created_at>|<id>`. */
export function encodeCursor(p: FeedPosition): string {
  return Buffer.from(`${p.createdAt}|${p.eventId}`, 'utf8').toString('base64url');
}

/** The position a cursor names, or undefined when it is not a cursor the feed gave. */
export function decodeCursor(cursor: string): FeedPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,300}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [createdAt, eventId, ...rest] = text.split('|');
  if (rest.length || !createdAt || !eventId || !isoUtc.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || !eventIdPattern.test(eventId)) return undefined;
  // Only the canonical encoding is a cursor: base64url text that decodes loosely is refused.
  if (encodeCursor({ createdAt, eventId }) !== cursor) return undefined;
  return { createdAt, eventId };
}

/** Epoch seconds when the feed lets an event go. */
export function feedExpiry(createdAt: string): number {
  return Math.floor(Date.parse(createdAt) / 1000) + feedRetentionDays * 86_400;
}
