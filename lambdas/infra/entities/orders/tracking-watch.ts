import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, keyless } from '../entity';

/**
 * One small row per shipment of an external carrier that is not final yet (`TRACKWATCH`, sorted
 * by shipment id): the scheduled tracking poll reads these, never the orders. Written in the ship
 * transaction, deleted in the transaction that makes the shipment final (delivered, returned) or
 * voids its label, so the partition holds only the shipments still moving.
 */
export const trackingWatches = defineEntity({
  model: { entity: 'trackingWatch', version: '1', service },
  attributes: {
    shipmentId: { type: 'number', required: true },
    /** The shipment id zero-padded: the watches sort by id. */
    shipmentKey: { type: 'string', hidden: true, watch: ['shipmentId'], set: (_: unknown, { shipmentId }: { shipmentId: number }) => pad(shipmentId) },
    ...required({ orderId: 'number', accountId: 'number', carrier: 'string', trackingNumber: 'string' }),
  },
  indexes: {
    all: { pk: key('pk', 'TRACKWATCH', keyless), sk: key('sk', '${shipmentKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type TrackingWatchItem = EntityItem<ReturnType<typeof trackingWatches>>;
