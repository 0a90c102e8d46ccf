import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { canEditClientInfo } from '#services/customs/webservices';
import { CouriersClientInfoCanEdit } from '#catalog/customs';

/** POST /v1/couriers/client-info/can-edit: whether the AWB's tax id can still be corrected. */
export const handler = route(CouriersClientInfoCanEdit.schemas, async ({ body, principal }) => ok(await canEditClientInfo(principal, body.awb_number)));
