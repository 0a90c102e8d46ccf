import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/**
 * The account's order meta: `version` changes with every listed change, `count` is the number of
 * orders, `viewVersion` the version of the account's order snapshot (services/orders/list-view.ts).
 */
export const orderMetas = defineEntity({
  model: { entity: 'orderMeta', version: '1', service },
  attributes: {
    ...required({ accountId: 'number' }),
    ...optional({ version: 'number', count: 'number', viewVersion: 'number' }),
  },
  indexes: {
    byAccount: { pk: key('pk', 'ORDERMETA#${accountId}', keyless), sk: key('sk', 'META', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type OrderMetaItem = EntityItem<ReturnType<typeof orderMetas>>;
