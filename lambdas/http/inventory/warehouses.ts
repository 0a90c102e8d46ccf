import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { byMethod } from '../kit/by-method';
import { saveWarehouse, warehousesOf } from '#services/inventory/inventory';
import { WarehousesPut } from '#catalog/inventory';

const view = (w: { id: number; name: string; address1: string; city: string; state: string; postal_code: string; country: string; phone?: string; updatedAt: string }) => ({
  id: w.id,
  name: w.name,
  address1: w.address1,
  city: w.city,
  state: w.state,
  postal_code: w.postal_code,
  country: w.country,
  ...(w.phone ? { phone: w.phone } : {}),
  updated_at: w.updatedAt,
});

export const handler = byMethod({
  GET: route({}, async ({ principal }) => ok({ warehouses: (await warehousesOf(principal.accountId)).map(view) })),
  PUT: route(WarehousesPut.schemas, async ({ params, body, principal }) => {
    const record = await saveWarehouse({ accountId: principal.accountId, id: params.id, ...body });
    return ok(view(record), { message: 'Warehouse saved.' });
  }),
});
