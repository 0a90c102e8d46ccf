import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { stockList } from '#services/inventory/inventory';

/** GET /v1/inventory: the account's stock levels. A module of its own, without the setting's events (issue 46). */
export const handler = route({}, async ({ principal }) => ok({ products: await stockList(principal.accountId) }));
