import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, optional, keyless } from '../entity';
import type { FulfillmentStatus, OrderChannel, OrderRecord, OrderStatus } from '#core/orders/model';
import type { FormerChannel } from '#core/orders/marketplace';

/** The id zero-padded in sort keys, so orders of one instant sort by id. */
export const idKey = { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) } as const;

/**
 * The order, whole. Nested parts (customer, addresses, items, totals, timeline, shipments) and
 * the fields that may be null are stored as they are (`any`); their shape is `OrderRecord`'s.
 * `channel` may be a former code (see orders.ts).
 */
export const orders = defineEntity({
  model: { entity: 'order', version: '1', service },
  attributes: {
    ...required({ id: 'number', accountId: 'number' }),
    idKey,
    ...required({ orderNumber: 'string' }),
    channel: { type: CustomAttributeType<OrderChannel | FormerChannel>('string'), required: true },
    status: { type: CustomAttributeType<OrderStatus>('string'), required: true },
    fulfillmentStatus: { type: CustomAttributeType<FulfillmentStatus>('string'), required: true },
    customer: { type: CustomAttributeType<OrderRecord['customer']>('any'), required: true },
    shippingAddress: { type: CustomAttributeType<OrderRecord['shippingAddress']>('any'), required: true },
    items: { type: CustomAttributeType<OrderRecord['items']>('any'), required: true },
    ...required({ currency: 'string' }),
    totals: { type: CustomAttributeType<OrderRecord['totals']>('any'), required: true },
    timeline: { type: CustomAttributeType<OrderRecord['timeline']>('any'), required: true },
    shipments: { type: CustomAttributeType<OrderRecord['shipments']>('any'), required: true },
    ...required({ createdAt: 'string', updatedAt: 'string', version: 'number' }),
    /** Null when empty (ElectroDB's string refuses null, so `any`); orders.ts `fromStored` maps them onto the record. */
    ...optional({ channelOrderId: 'any', channelUpdatedAt: 'any', financialStatus: 'any', billingAddress: 'any', notes: 'any' }),
    ...optional({ cancelledAt: 'any', cancelReason: 'any' }),
  },
  indexes: {
    byId: { pk: key('pk', 'ORDER#${id}', keyless), sk: key('sk', 'ORDER', keyless) },
    byAccount: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNT#${accountId}#ORDERS', keyless), sk: key('gsi1sk', '${createdAt}#${idKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type OrderEntityItem = EntityItem<ReturnType<typeof orders>>;
