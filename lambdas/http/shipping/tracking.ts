import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { shipmentView } from '#core/orders/views';
import { trackingUpdate } from '#services/shipping/shipments';
import { TrackingUpdates } from '#catalog/shipping';

/** The tracking-update entry point: a carrier's (or the merchant's) report of a shipment's status. */
export const handler = route(TrackingUpdates.schemas, async ({ body, principal }) => {
  const { order, shipment, changed } = await trackingUpdate(principal, body);
  return ok({ order_id: order.id, order_status: order.status, shipment: shipmentView(shipment) }, { message: changed ? 'Tracking updated.' : 'No change.' });
});
