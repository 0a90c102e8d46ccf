/**
 * An account's warehouses (`WAREHOUSE#<account>`, one row each): the ship-from address printed on
 * labels and the place tracked stock sits. The merchant numbers them (`PUT /v1/warehouses/{id}`).
 */
import { pad } from './entity';
import { warehouses, type WarehouseItem } from './warehouses/warehouse';

/** A warehouse: its address is a label's sender block as it stands. */
export type WarehouseRecord = WarehouseItem;

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
