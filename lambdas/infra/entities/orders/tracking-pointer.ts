import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, keyless } from '../entity';
import { pointer } from './shipment-pointer';

/** From a tracking number (upper-cased) to its shipment and order. */
export const trackingPointers = defineEntity({
  model: { entity: 'trackingPointer', version: '1', service },
  attributes: { ...pointer, /** Upper-cased. */
    trackingNumber: { type: 'string', required: true } },
  indexes: {
    byTracking: { pk: key('pk', 'TRACKING#${trackingNumber}', keyless), sk: key('sk', 'TRACKING', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type TrackingPointerItem = EntityItem<ReturnType<typeof trackingPointers>>;
