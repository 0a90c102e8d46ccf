/**
 * Stock levels the service tracks: the merchant sets a SKU's stock, threshold and warehouse
 * (PUT /v1/inventory/{sku}); shipping an order with a label takes its quantities off in the
 * shipment's transaction. A level that falls under its threshold, by a shipment or by a PUT,
 * fires `inventory.low_stock` once per fall.
 */
import type { Principal } from '#core/auth/principal';
import { ValidationFailed } from '#core/errors';
import { lowStockPayload } from '#core/webhooks/payloads';
import { nowIso } from '#infra/clock';
import { listProducts, markLowStock, setStock, type ProductRecord } from '#infra/entities/products';
import { getWarehouse, listWarehouses, putWarehouse, type WarehouseRecord } from '#infra/entities/warehouses';
import { publishEvents } from '../publish';

const view = (p: ProductRecord, warehouseName?: string) => ({
  product_id: p.productId,
  sku: p.sku,
  name: p.name,
  current_stock: p.stock ?? null,
  threshold: p.threshold ?? null,
  warehouse_id: p.warehouseId ?? null,
  warehouse_name: warehouseName ?? p.warehouseName ?? null,
  low_stock: p.stock !== undefined && p.threshold !== undefined ? p.stock < p.threshold : false,
  updated_at: p.updatedAt ?? null,
});

export async function setProductStock(principal: Principal, sku: string, input: { name?: string; stock: number; threshold: number; warehouse_id: number }) {
  const warehouse = await getWarehouse(principal.accountId, input.warehouse_id);
  if (!warehouse) throw new ValidationFailed({ warehouse_id: [`No warehouse ${input.warehouse_id}; add it with PUT /v1/warehouses/${input.warehouse_id}.`] });
  const product = await setStock(principal.accountId, sku, { name: input.name, stock: input.stock, threshold: input.threshold, warehouseId: warehouse.id, warehouseName: warehouse.name }, nowIso());
  const fallen = await markLowStock(principal.accountId, [sku]);
  await publishEvents(
    principal.accountId,
    fallen.map((p) => ({
      type: 'inventory.low_stock',
      data: lowStockPayload({ productId: p.productId, sku: p.sku, name: p.name, currentStock: p.stock!, threshold: p.threshold!, warehouseId: warehouse.id, warehouseName: warehouse.name }),
    })),
  );
  return view(product, warehouse.name);
}

export async function stockList(accountId: number) {
  const [products, warehouses] = await Promise.all([listProducts(accountId), listWarehouses(accountId)]);
  const names = new Map(warehouses.map((w) => [w.id, w.name]));
  return products.map((p) => view(p, p.warehouseId !== undefined ? names.get(p.warehouseId) : undefined));
}

export function warehousesOf(accountId: number): Promise<WarehouseRecord[]> {
  return listWarehouses(accountId);
}

/** Creates or replaces one of the account's warehouses; answers the record as stored. */
export async function saveWarehouse(warehouse: Omit<WarehouseRecord, 'updatedAt'>): Promise<WarehouseRecord> {
  const record = { ...warehouse, updatedAt: nowIso() };
  await putWarehouse(record);
  return record;
}
