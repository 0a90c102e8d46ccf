import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { quoteLandedCost } from '#services/customs/quote';
import { CustomsCalculate } from '#catalog/customs';

/** POST /v1/customs/calculate: a landed-cost quote of one product line (docs/merchants/landed-cost.md). Stores nothing. */
export const handler = route(CustomsCalculate.schemas, async ({ body }) => ok(await quoteLandedCost(body)));
