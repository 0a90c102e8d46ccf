import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { shipmentView } from '../../core/orders/views';
import { findOrder } from '../../services/orders/orders';

export const handler = route({ params: IdParams }, async ({ params, principal }) => {
  const order = await findOrder(principal, params.id);
  return ok({ shipments: order.shipments.map(shipmentView) });
});
