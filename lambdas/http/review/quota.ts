import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { quotaShipments } from '#services/review/quota';
import { QuotaShipments } from '#catalog/review';

export const handler = route(QuotaShipments.schemas, async ({ params, query, principal }) => ok(await quotaShipments(principal, params.tax_id, query.year)));
