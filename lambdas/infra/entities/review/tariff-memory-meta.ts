import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/** How many products an account's tariff memory holds. */
export const tariffMemoryMetas = defineEntity({
  model: { entity: 'tariffMemoryMeta', version: '1', service },
  attributes: { ...required({ accountId: 'number' }), ...optional({ count: 'number', updatedAt: 'string' }) },
  indexes: { byAccount: { pk: key('pk', 'ACCOUNT#${accountId}#TARIFFMEMORY', keyless), sk: key('sk', 'META', keyless) } },
} as const);

/** An item of the entity as a read answers it. */
export type TariffMemoryMetaItem = EntityItem<ReturnType<typeof tariffMemoryMetas>>;
