import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, keyless } from '../entity';
import type { OrderChannel } from '#core/orders/model';
import type { FormerChannel } from '#core/orders/marketplace';

/**
 * One listed change of an account's orders, under the account's order version it was given: the
 * order's index row as the change left it (or none, `noop`, for a version whose write lost its
 * condition). The order list reads these to bring a cached index up to date without reading the
 * whole index again. Kept a day (`ttl`).
 */
export const orderChanges = defineEntity({
  model: { entity: 'orderChange', version: '1', service },
  attributes: {
    accountId: { type: 'number', required: true, hidden: true },
    version: { type: 'number', required: true, field: 'v' },
    versionKey: { type: 'string', required: true, hidden: true, field: 'vk' },
    noop: { type: 'boolean', field: 'x' },
    id: { type: 'number', field: 'i' },
    orderNumber: { type: 'string', field: 'n' },
    status: { type: 'string', field: 's' },
    fulfillmentStatus: { type: 'string', field: 'f' },
    channel: { type: CustomAttributeType<OrderChannel | FormerChannel>('string'), field: 'c' },
    customerName: { type: 'string', field: 'm' },
    createdAt: { type: 'string', field: 't' },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byAccount: { pk: key('pk', 'ORDERCHG#${accountId}', keyless), sk: key('sk', '${versionKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type OrderChangeItem = EntityItem<ReturnType<typeof orderChanges>>;
