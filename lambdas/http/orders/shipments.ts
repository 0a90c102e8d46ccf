import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { shipmentView } from '#core/orders/views';
import { findOrder } from '#services/orders/orders';
import { OrdersShipments } from '#catalog/orders';

export const handler = route(OrdersShipments.schemas, async ({ params, principal }) => {
  const order = await findOrder(principal, params.id);
  return ok({ shipments: order.shipments.map(shipmentView) });
});
