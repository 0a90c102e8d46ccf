import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { quotaCheck } from '../../services/customs/webservices';
import { QuotaCheckBody } from './schemas';

/** POST /v1/couriers/quota/check: the tax id's quota record (spec 2.7). */
export const handler = route({ body: QuotaCheckBody }, async ({ body, principal }) => ok(await quotaCheck(principal, body.tax_id, body.awb_number)));
