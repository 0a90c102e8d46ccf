import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { quotaCheck } from '#services/customs/webservices';
import { CouriersQuotaCheck } from '#catalog/customs';

/** POST /v1/couriers/quota/check: the tax id's quota record (spec 2.7). */
export const handler = route(CouriersQuotaCheck.schemas, async ({ body, principal }) => ok(await quotaCheck(principal, body.tax_id, body.awb_number)));
