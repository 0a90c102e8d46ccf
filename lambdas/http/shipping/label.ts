import { route } from '../kit/route';
import { shipmentLabel } from '#services/shipping/shipments';
import { ShipmentLabel } from '#catalog/shipping';

/** The label of a shipment, to the order's account only, as the PDF itself. */
export const handler = route(ShipmentLabel.schemas, async ({ params, principal }) => {
  const { pdf, fileName } = await shipmentLabel(principal, params.id);
  return {
    status: 200,
    headers: { 'Content-Disposition': `inline; filename="${fileName}"`, 'Cache-Control': 'private, max-age=300' },
    raw: { contentType: 'application/pdf', body: pdf },
  };
});
