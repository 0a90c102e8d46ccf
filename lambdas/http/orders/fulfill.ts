import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { idempotencyKey } from '../kit/idempotency-key';
import { fulfillOrder } from '#services/shipping/shipments';
import { OrdersFulfill } from '#catalog/orders';

export const handler = route(OrdersFulfill.schemas, async ({ params, body, headers, principal }) => {
  const { order, shipment, notified } = await fulfillOrder(principal, params.id, body, idempotencyKey(headers));
  return ok(
    {
      order_id: order.id,
      shipment_id: shipment.id,
      fulfillment_status: order.fulfillmentStatus,
      tracking_number: shipment.trackingNumber,
      carrier: shipment.carrier,
      notified_customer: notified,
    },
    { message: order.fulfillmentStatus === 'fulfilled' ? 'Order fulfilled.' : 'Order partially fulfilled.' },
  );
});
