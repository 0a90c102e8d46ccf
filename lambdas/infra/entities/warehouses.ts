/**
 * An account's warehouses (`WAREHOUSE#<account>`, one row each): the ship-from address printed on
 * labels and the place tracked stock sits. The merchant numbers them (`PUT /v1/warehouses/{id}`).
 */
import type { EntityItem } from 'electrodb';
import { defineEntity, key, pad, service, required, optional } from './entity';

const keyless = { casing: 'none' } as const;

const warehouses = defineEntity({
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

/** A warehouse: its address is a label's sender block as it stands. */
export type WarehouseRecord = EntityItem<ReturnType<typeof warehouses>>;

/**
 * Rows written before the entity (by hand, the same keys and fields) carry no ElectroDB
 * identifiers: reads do not ask for them (`ignoreOwnership`), and a read gives back only the
 * declared attributes either way.
 */
const read = { ignoreOwnership: true } as const;

export async function putWarehouse(w: WarehouseRecord): Promise<void> {
  await warehouses().put({ ...w, idKey: pad(w.id) }).go();
}

export async function getWarehouse(accountId: number, id: number): Promise<WarehouseRecord | undefined> {
  return (await warehouses().get({ accountId, idKey: pad(id) }).go({ consistent: true, ...read })).data ?? undefined;
}

/** The account's warehouses by id; the first is the default ship-from address. */
export async function listWarehouses(accountId: number): Promise<WarehouseRecord[]> {
  return (await warehouses().query.byAccount({ accountId }).go({ pages: 'all', consistent: true, ...read })).data;
}
