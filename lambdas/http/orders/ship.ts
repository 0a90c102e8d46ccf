import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { idempotencyKey } from '../kit/idempotency-key';
import { shipOrder } from '#services/shipping/shipments';
import { labelUrl } from './label-url';
import { OrdersShip } from '#catalog/orders';

export const handler = route(OrdersShip.schemas, async ({ event, params, body, headers, principal }) => {
  const { order, shipment, notified } = await shipOrder(principal, params.id, body, (id) => labelUrl(event, headers, id), idempotencyKey(headers));
  return ok(
    {
      order_id: order.id,
      shipment_id: shipment.id,
      tracking_number: shipment.trackingNumber,
      carrier: shipment.carrier,
      service: shipment.service,
      label_url: shipment.labelUrl,
      estimated_delivery: shipment.estimatedDelivery,
      fulfillment_status: order.fulfillmentStatus,
      notified_customer: notified,
    },
    { status: 201, message: 'Shipment created and label generated.' },
  );
});
