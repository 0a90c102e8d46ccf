import * as v from 'valibot';
import { webhookEventNames } from '../../core/webhooks/events';
import { feedDefaultLimit, feedMaxLimit } from '../../core/webhooks/feed';
import { intQuery } from '../kit/schemas';

const name = `(${webhookEventNames.map((e) => e.replace('.', '\\.')).join('|')})`;

/** `types=a,b`: event names of GET /webhook-subscriptions/available-events, comma-separated (the pattern says which). */
const types = v.pipe(
  v.string(),
  v.regex(new RegExp(`^${name}(,${name})*$`), 'Must be event names of GET /api/webhook-subscriptions/available-events, comma-separated.'),
  v.transform((s) => [...new Set(s.split(','))]),
);

export const EventsQuery = v.object({
  // Whether it is one the feed answered is the service's check (feed.ts): 422 naming `after` too.
  after: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,300}$/, 'Is not a cursor this feed answered (meta.next_cursor).'))),
  types: v.optional(types),
  limit: v.optional(intQuery(1, feedMaxLimit), String(feedDefaultLimit)),
  order: v.optional(v.picklist(['desc', 'asc'], 'Must be desc (newest first) or asc (oldest first).'), 'desc'),
});
