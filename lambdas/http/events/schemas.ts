import * as v from 'valibot';
import { webhookEventNames } from '../../core/webhooks/events';
import { feedDefaultLimit, feedMaxLimit } from '../../core/webhooks/feed';
import { intQuery } from '../kit/schemas';

const known = new Set<string>(webhookEventNames);

/** `types=a,b`: event names of GET /webhook-subscriptions/available-events, comma-separated. */
const types = v.pipe(
  v.string(),
  v.transform((s) => [...new Set(s.split(',').map((t) => t.trim()).filter(Boolean))]),
  v.check((list) => list.length > 0, 'Name at least one event, comma-separated.'),
  v.check((list) => list.every((t) => known.has(t)), 'Unknown event: see GET /api/webhook-subscriptions/available-events.'),
);

export const EventsQuery = v.object({
  after: v.optional(v.pipe(v.string(), v.maxLength(300, 'Is not a cursor this feed answered.'))),
  types: v.optional(types),
  limit: v.optional(intQuery(1, feedMaxLimit), String(feedDefaultLimit)),
  order: v.optional(v.picklist(['desc', 'asc'], 'Must be desc (newest first) or asc (oldest first).'), 'desc'),
});
