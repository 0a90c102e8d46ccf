import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { updateClientInfo } from '#services/customs/webservices';
import { CouriersClientInfoUpdate } from '#catalog/customs';

/** PUT /v1/couriers/client-info: corrects the AWB's tax id and re-runs web services and calculations. */
export const handler = route(CouriersClientInfoUpdate.schemas, async ({ body, principal }) => {
  const { message, data } = await updateClientInfo(principal, body.awb_number, body.tax_id);
  return ok(data, { message });
});
