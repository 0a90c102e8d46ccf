import { now } from './clock';
import { ValidationFailed } from '#core/errors';
import { deliveryEstimate, despachoTransitDays, trackingNumberFor, type CarrierPort, type TrackingIssued, type TrackingRequest, type DespachoService } from '#core/shipping/carrier';
import { dhlCarrier } from './carriers/dhl';
import { fedexCarrier } from './carriers/fedex';
import { upsCarrier } from './carriers/ups';
import { uspsCarrier } from './carriers/usps';

function isDespachoService(service: string): service is DespachoService {
  return Object.hasOwn(despachoTransitDays, service);
}

/**
 * Despacho's own delivery network: tracking numbers from `trackingNumberFor`, dates from
 * `deliveryEstimate`, no label of its own (the service draws it), nothing to void, tracking by
 * the tracking-updates entry point. For merchants without a carrier account.
 */
export const builtinCarrier: CarrierPort & { issueTracking(input: TrackingRequest): Promise<TrackingIssued> } = {
  name: 'despacho',
  services: Object.keys(despachoTransitDays),
  async issueTracking({ shipmentId, service }) {
    if (!isDespachoService(service)) {
      throw new ValidationFailed({ service: [`despacho offers ${Object.keys(despachoTransitDays).join(', ')}`] });
    }
    return { trackingNumber: trackingNumberFor(shipmentId), estimatedDelivery: deliveryEstimate(now(), despachoTransitDays[service]) };
  },
  async createShipment({ shipmentId, service, accountId }) {
    const issued = await builtinCarrier.issueTracking({ shipmentId, service, accountId });
    return { ...issued, label: null, cost: null, reference: null };
  },
};

/**
 * The carriers a shipment can be created with, by the lower-case name callers send: the built-in
 * one and the four external ones (each needs the account's carrier account, PUT
 * /v1/shipping/carriers/{carrier}). Any other name is refused (422 naming `carrier`) rather than
 * given a made-up tracking number that no carrier knows.
 */
const carriers: ReadonlyMap<string, CarrierPort> = new Map(
  [builtinCarrier, fedexCarrier(), upsCarrier(), dhlCarrier(), uspsCarrier()].map((c) => [c.name, c] as const),
);

/** The names `carrierFor` knows, for the 422 message. */
export const carrierNames: readonly string[] = [...carriers.keys()];

/** The carrier registered under `name` (exact, lower case), or undefined. */
export function carrierFor(name: string): CarrierPort | undefined {
  return carriers.get(name);
}
