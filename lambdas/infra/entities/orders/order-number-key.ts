import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';

/** Uniqueness key of a web order number (case-insensitive: the key holds it lower-cased). */
export const orderNumberKeys = defineEntity({
  model: { entity: 'orderNumberKey', version: '1', service },
  attributes: {
    accountId: { type: 'number', required: true },
    /** Lower-cased. */
    ...required({ orderNumber: 'string', orderId: 'number' }),
  },
  indexes: {
    byNumber: { pk: key('pk', 'ORDERNO#${accountId}#${orderNumber}', keyless), sk: key('sk', 'ORDERNO', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type OrderNumberKeyItem = EntityItem<ReturnType<typeof orderNumberKeys>>;
