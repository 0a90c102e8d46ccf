import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { cancelOrder } from '../../services/orders/orders';
import { CancelBody } from './schemas';

export const handler = route({ params: IdParams, body: CancelBody }, async ({ params, body, principal }) => {
  const { order, already } = await cancelOrder(principal, params.id, body);
  return ok({ order_id: order.id, status: order.status, cancelled_at: order.cancelledAt }, { message: already ? 'The order was already cancelled.' : 'Order cancelled.' });
});
