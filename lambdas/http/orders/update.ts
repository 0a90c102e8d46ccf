import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { orderDetailView } from '#core/orders/views';
import { updateOrder } from '#services/orders/orders';
import { OrdersUpdate } from '#catalog/orders';

export const handler = route(OrdersUpdate.schemas, async ({ params, body, principal }) => {
  const { order, changed } = await updateOrder(principal, params.id, body);
  const detail = orderDetailView(order);
  const data: Record<string, unknown> = { id: order.id };
  for (const f of ['status', 'notes', 'shipping_address'] as const) if (body[f] !== undefined) data[f] = detail[f];
  data.fulfillment_status = order.fulfillmentStatus;
  data.updated_at = order.updatedAt;
  return ok(data, { message: changed.length ? `Order updated (${changed.join(', ')}).` : 'Nothing to change.' });
});
