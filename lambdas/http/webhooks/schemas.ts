import * as v from 'valibot';
import { webhookEventNames } from '#core/webhooks/events';
import { safeIdentifier } from '#core/identifier';
import { IdParam, intQuery } from '../kit/schemas';
import { feedDefaultLimit, feedMaxLimit } from '#core/webhooks/feed';

/**
 * The URL is shown to people (the dashboard, the CLI): like an identifier, it refuses control
 * and bidirectional characters (U+202E would make one URL read as another; core/identifier.ts).
 */
const endpointUrl = v.pipe(v.string('Must be a string.'), v.trim(), v.nonEmpty('Must not be empty.'), v.maxLength(500, 'Must be at most 500 characters.'), safeIdentifier);
const events = v.pipe(
  v.array(v.picklist(webhookEventNames, 'Unknown event: see GET /api/webhook-subscriptions/available-events.'), 'Must be an array of event names.'),
  v.minLength(1, 'Name at least one event.'),
  v.maxLength(webhookEventNames.length, 'Too many events.'),
);

export const CreateSubscriptionBody = v.object({
  endpoint_url: endpointUrl,
  events,
  active: v.optional(v.boolean('Must be true or false.'), true),
});

export const UpdateSubscriptionBody = v.pipe(
  v.object({
    endpoint_url: v.optional(endpointUrl),
    events: v.optional(events),
    active: v.optional(v.boolean('Must be true or false.')),
  }),
  v.check((b) => b.endpoint_url !== undefined || b.events !== undefined || b.active !== undefined, 'Send at least one of endpoint_url, events, active.'),
);

export const DeliveryParams = v.object({ id: IdParam, delivery: IdParam });

export const DeliveriesQuery = v.object({
  per_page: v.optional(intQuery(1, 100), '20'),
  page: v.optional(intQuery(1, 1_000_000), '1'),
  state: v.optional(v.picklist(['pending', 'retrying', 'delivered', 'failed'], 'Must be pending, retrying, delivered or failed.')),
});

export const RetryFailedBody = v.object({
  since: v.optional(v.pipe(v.string('Must be a string.'), v.isoTimestamp('Must be an ISO 8601 timestamp, e.g. 2026-11-20T10:00:00Z.'))),
});

/* The events feed (GET /v1/events). */

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
  /** Oldest first from this instant (its events included): where a client starts without a cursor, or looks back from (cursors are signed: none is made by hand). */
  since: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/, 'Must be an ISO 8601 UTC instant, e.g. 2026-11-20T10:00:00Z.'),
      v.check((s) => !Number.isNaN(Date.parse(s)), 'Must be an ISO 8601 UTC instant, e.g. 2026-11-20T10:00:00Z.'),
    ),
  ),
  types: v.optional(types),
  limit: v.optional(intQuery(1, feedMaxLimit), String(feedDefaultLimit)),
  order: v.optional(v.picklist(['desc', 'asc'], 'Must be desc (newest first) or asc (oldest first).'), 'desc'),
});
