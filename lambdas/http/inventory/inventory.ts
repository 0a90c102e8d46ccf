import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { byMethod } from '../kit/by-method';
import { setProductStock, stockList } from '#services/inventory/inventory';
import { InventorySet } from '#catalog/inventory';

export const handler = byMethod({
  GET: route({}, async ({ principal }) => ok({ products: await stockList(principal.accountId) })),
  PUT: route(InventorySet.schemas, async ({ params, body, principal }) => ok(await setProductStock(principal, params.sku, body), { message: 'Stock level set.' })),
});
