import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';

/** One event of an account's feed: the envelope exactly as its deliveries send it. */
export const feedEvents = defineEntity({
  model: { entity: 'feedEvent', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', eventId: 'string', eventType: 'string', createdAt: 'string' }),
    /** The JSON body every delivery of the event sends. */
    ...required({ body: 'string' }),
    /** Epoch seconds; the feed keeps an event for 30 days (DynamoDB TTL). */
    expiresAt: { type: 'number', field: 'ttl', required: true },
  },
  indexes: {
    // The account's feed in time order; the key is the event's own, so a repeated write finds it there.
    byAccount: {
      pk: key('pk', 'ACCOUNT#${accountId}#EVENTS', keyless),
      sk: key('sk', 'EVT#${createdAt}#${eventId}', keyless),
    },
  },
} as const);

/** An item of the entity as a read answers it. */
export type FeedEventItem = EntityItem<ReturnType<typeof feedEvents>>;
