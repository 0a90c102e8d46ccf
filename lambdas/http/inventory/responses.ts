import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { data, integer, nullable, timestamp } from '../kit/responses';

/** The answers of the stock and warehouse routes, for openapi.json: see services/inventory/inventory.ts. */

const Stock = v.strictObject({
  product_id: integer,
  sku: v.string(),
  name: v.string(),
  current_stock: nullable(integer),
  threshold: nullable(integer),
  warehouse_id: nullable(integer),
  warehouse_name: nullable(v.string()),
  low_stock: v.boolean(),
  updated_at: nullable(timestamp),
});
const Warehouse = v.strictObject({
  id: integer,
  name: v.string(),
  address1: v.string(),
  city: v.string(),
  state: v.string(),
  postal_code: v.string(),
  country: v.string(),
  /** The shipper's phone the external carriers need; absent when none was given. */
  phone: v.optional(v.string()),
  updated_at: timestamp,
});

export const inventoryResponses = {
  InventoryList: { answers: { 200: data('The stock levels of the account\'s products', v.strictObject({ products: v.array(Stock) })) } },
  InventorySet: { answers: { 200: data('The product\'s stock level as set', Stock, { message: true }) } },
  WarehousesList: { answers: { 200: data("The account's warehouses, in id order", v.strictObject({ warehouses: v.array(Warehouse) })) } },
  WarehousesPut: { answers: { 200: data('The warehouse as saved', Warehouse, { message: true }) } },
} satisfies Record<string, RouteResponses>;
