import { now } from './clock';
import { ValidationFailed } from '../core/errors';
import { deliveryEstimate, despachoTransitDays, trackingNumberFor, type CarrierPort, type DespachoService } from '../core/shipping/carrier';

function isDespachoService(service: string): service is DespachoService {
  return Object.hasOwn(despachoTransitDays, service);
}

/** Despacho's own delivery network: tracking numbers from `trackingNumberFor`, dates from `deliveryEstimate`. */
export const builtinCarrier: CarrierPort = {
  name: 'despacho',
  services: Object.keys(despachoTransitDays),
  async issueTracking({ shipmentId, service }) {
    if (!isDespachoService(service)) {
      throw new ValidationFailed({ service: [`despacho offers ${Object.keys(despachoTransitDays).join(', ')}`] });
    }
    return { trackingNumber: trackingNumberFor(shipmentId), estimatedDelivery: deliveryEstimate(now(), despachoTransitDays[service]) };
  },
};

/**
 * The carriers a shipment can be created with, by the lower-case name callers send. Only carriers
 * with an adapter are here: a name such as `fedex`, `dhl` or `ups` is refused (the caller answers
 * 422 naming `carrier`) rather than given a made-up tracking number that no carrier knows.
 */
const carriers: ReadonlyMap<string, CarrierPort> = new Map([[builtinCarrier.name, builtinCarrier]]);

/** The names `carrierFor` knows, for the 422 message. */
export const carrierNames: readonly string[] = [...carriers.keys()];

/** The carrier registered under `name` (exact, lower case), or undefined. */
export function carrierFor(name: string): CarrierPort | undefined {
  return carriers.get(name);
}
