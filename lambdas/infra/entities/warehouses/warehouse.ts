import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, optional, keyless } from '../entity';

/** An account's warehouse (see warehouses.ts). */
export const warehouses = defineEntity({
  model: { entity: 'warehouse', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', id: 'number' }),
    /** The id zero-padded, so the account's warehouses list in id order. */
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    /** The label's sender block, as it stands (infra/label-pdf `LabelAddress`). */
    ...required({ name: 'string', address1: 'string', city: 'string', state: 'string', postal_code: 'string' }),
    ...required({ country: 'string' }),
    /** Optional; the external carriers' APIs need a shipper phone. */
    ...required({ updatedAt: 'string' }),
    ...optional({ phone: 'string' }),
  },
  indexes: {
    byAccount: { pk: key('pk', 'WAREHOUSE#${accountId}', keyless), sk: key('sk', 'W#${idKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type WarehouseItem = EntityItem<ReturnType<typeof warehouses>>;
