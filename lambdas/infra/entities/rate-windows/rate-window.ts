import type { EntityItem } from 'electrodb';
import { defineEntity, service, key } from '../entity';

/** A rate limiter's window: the hits of one key in one window, counted by an atomic ADD while the window is not closed by a revocation. */
export const rateWindows = defineEntity({
  model: { entity: 'rateWindow', version: '1', service },
  attributes: {
    key: { type: 'string', required: true },
    hits: { type: 'number', default: 0 },
    /** Set when the token was revoked (issue 41): no request counts in this window any more. */
    revokedAt: { type: 'string' },
    /** Epoch seconds; DynamoDB's TTL removes spent windows. */
    expiresAt: { type: 'number', field: 'ttl' },
  },
  indexes: {
    byKey: { pk: key('pk', 'RATE#${key}'), sk: key('sk', 'RATE') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type RateWindowItem = EntityItem<ReturnType<typeof rateWindows>>;
