import type { RouteDef } from './types';
import { SkuParams, StockBody, WarehouseBody, WarehouseParams } from '#http/orders/schemas';

export const InventoryList = {
  id: 'InventoryList',
  method: 'GET',
  path: '/v1/inventory',
  handler: 'http/inventory/list',
  summary: 'Products with their tracked stock levels and thresholds',
  tag: 'orders',
  auth: { scopes: ['orders:read'] },
  rate: 'orders.read',
  uses: { table: ['Query'] },
} satisfies RouteDef;

export const InventorySet = {
  id: 'InventorySet',
  method: 'PUT',
  path: '/v1/inventory/{sku}',
  handler: 'http/inventory/inventory',
  summary: "Set a SKU's stock level, low-stock threshold and warehouse",
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'], bus: true },
  schemas: { params: SkuParams, body: StockBody },
} satisfies RouteDef;

export const WarehousesList = {
  id: 'WarehousesList',
  method: 'GET',
  path: '/v1/warehouses',
  handler: 'http/inventory/warehouses',
  summary: "The account's warehouses (ship-from addresses)",
  tag: 'orders',
  auth: { scopes: ['orders:read'] },
  rate: 'orders.read',
  uses: { table: ['Query'] },
} satisfies RouteDef;

export const WarehousesPut = {
  id: 'WarehousesPut',
  method: 'PUT',
  path: '/v1/warehouses/{id}',
  handler: 'http/inventory/warehouses',
  summary: 'Add or change a warehouse (the ship-from address on labels)',
  tag: 'orders',
  auth: { scopes: ['orders:write'] },
  rate: 'orders.write',
  uses: { table: ['PutItem'] },
  schemas: { params: WarehouseParams, body: WarehouseBody },
} satisfies RouteDef;

/** Stock levels and warehouses (spec 2.3): GET needs `orders:read`, every other method `orders:write`. */
export const inventoryRoutes = { InventoryList, InventorySet, WarehousesList, WarehousesPut };
