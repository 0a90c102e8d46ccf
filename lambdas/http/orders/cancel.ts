import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { cancelVoidingLabels } from '#services/shipping/cancel';
import { OrdersCancel } from '#catalog/orders';

export const handler = route(OrdersCancel.schemas, async ({ params, body, principal }) => {
  const { order, already, voided } = await cancelVoidingLabels(principal, params.id, body);
  return ok(
    { order_id: order.id, status: order.status, cancelled_at: order.cancelledAt, ...(voided.length ? { voided_shipments: voided } : {}) },
    { message: already ? 'The order was already cancelled.' : voided.length ? `Order cancelled; ${voided.length} label${voided.length === 1 ? '' : 's'} voided.` : 'Order cancelled.' },
  );
});
