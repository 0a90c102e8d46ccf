import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';

/** Uniqueness key of a marketplace order: a re-sync never imports it twice. */
export const orderChannelKeys = defineEntity({
  model: { entity: 'orderChannelKey', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', channel: 'string', channelOrderId: 'string', orderId: 'number' }),
  },
  indexes: {
    byChannelOrder: { pk: key('pk', 'CHORDER#${accountId}#${channel}#${channelOrderId}', keyless), sk: key('sk', 'CHORDER', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type OrderChannelKeyItem = EntityItem<ReturnType<typeof orderChannelKeys>>;
