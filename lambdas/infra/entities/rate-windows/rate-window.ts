import type { EntityItem } from 'electrodb';
import { defineEntity, service, key } from '../entity';

/** A rate limiter's window: the hits of one key in one window, counted by an atomic ADD. */
export const rateWindows = defineEntity({
  model: { entity: 'rateWindow', version: '1', service },
  attributes: {
    key: { type: 'string', required: true },
    hits: { type: 'number', default: 0 },
    /** Epoch seconds; DynamoDB's TTL removes spent windows. */
    expiresAt: { type: 'number', field: 'ttl' },
  },
  indexes: {
    byKey: { pk: key('pk', 'RATE#${key}'), sk: key('sk', 'RATE') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type RateWindowItem = EntityItem<ReturnType<typeof rateWindows>>;
