import * as v from 'valibot';
import type { RouteResponses } from '../../catalog/types';
import { webhookEventNames } from '../../core/webhooks/events';
import { data, integer, nullable, timestamp } from '../kit/responses';
import { webhookEventData } from '../webhooks/responses';

/** An event as its deliveries send it (spec 2.10): one envelope per event, its `data` as the event's. */
const Envelope = v.variant(
  'type',
  webhookEventNames.map((name) => v.strictObject({ id: v.string(), type: v.literal(name), created_at: timestamp, data: webhookEventData[name] })),
);

export const eventsResponses = {
  EventsList: {
    answers: {
      200: data('A page of the account\'s events, each exactly as its deliveries send it', v.array(Envelope), {
        extra: {
          meta: v.strictObject({
            next_cursor: nullable(v.string()),
            has_more: v.boolean(),
            limit: integer,
            order: v.picklist(['desc', 'asc']),
          }),
        },
      }),
    },
  },
} satisfies Record<string, RouteResponses>;
