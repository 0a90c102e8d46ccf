import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { setProductStock } from '#services/inventory/inventory';
import { InventorySet } from '#catalog/inventory';

/** PUT /v1/inventory/{sku}: sets a product's stock level (the list is list.ts). */
export const handler = route(InventorySet.schemas, async ({ params, body, principal }) => ok(await setProductStock(principal, params.sku, body), { message: 'Stock level set.' }));
