import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';

/** What both pointers to an order hold. */
export const pointer = {
  ...required({ shipmentId: 'number', orderId: 'number', accountId: 'number' }),
} as const;

/** From a shipment's id to its order. */
export const shipmentPointers = defineEntity({
  model: { entity: 'shipmentPointer', version: '1', service },
  attributes: pointer,
  indexes: {
    byShipment: { pk: key('pk', 'SHIPMENT#${shipmentId}', keyless), sk: key('sk', 'SHIPMENT', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ShipmentPointerItem = EntityItem<ReturnType<typeof shipmentPointers>>;
