import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, keyless } from '../entity';
import type { OrderChannel } from '#core/orders/model';
import type { FormerChannel } from '#core/orders/marketplace';
import { idKey } from './order';

/** What a list filters and searches on, one small row per order in the account's partition (short field names). */
export const orderRows = defineEntity({
  model: { entity: 'orderRow', version: '1', service },
  attributes: {
    accountId: { type: 'number', required: true, hidden: true },
    id: { type: 'number', required: true, field: 'i' },
    idKey,
    orderNumber: { type: 'string', required: true, field: 'n' },
    status: { type: 'string', required: true, field: 's' },
    fulfillmentStatus: { type: 'string', required: true, field: 'f' },
    /** May be a former code (see orders.ts). */
    channel: { type: CustomAttributeType<OrderChannel | FormerChannel>('string'), required: true, field: 'c' },
    customerName: { type: 'string', required: true, field: 'm' },
    createdAt: { type: 'string', required: true, field: 't' },
  },
  indexes: {
    byAccount: { pk: key('pk', 'ORDERIDX#${accountId}', keyless), sk: key('sk', '${createdAt}#${idKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type OrderRowItem = EntityItem<ReturnType<typeof orderRows>>;
