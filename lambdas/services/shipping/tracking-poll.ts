import type { Principal } from '#core/auth/principal';
import { canMoveShipment } from '#core/orders/model';
import { ServiceError } from '#core/errors';
import { carrierFor } from '#infra/carriers';
import { queues } from '#infra/queues';
import { forgetWatchedShipment, getOrder, watchedShipments, type TrackingWatch } from '#infra/entities/orders';
import { logger } from '#shared/logger';
import { moveShipment } from './shipments';

/**
 * The scheduled tracking poll (issue 18 item 5): every shipment of an external carrier that is not
 * final is asked of its carrier, and a new status moves the shipment as a tracking update does
 * (shipment.delivered fires once, the order becomes delivered with its last shipment). A page of
 * `pageSize` shipments per run, a few carriers' calls at once; a carrier that fails for one
 * shipment is logged and asked again on the next tick. `next` is where the next page starts.
 */
export const trackingPageSize = 200;
const atOnce = 4;

export interface PollResult {
  polled: number;
  moved: number;
  failed: number;
  /** The last shipment id of a full page (another page follows), else null. */
  next: number | null;
}

const pollPrincipal = (accountId: number): Principal => ({ accountId, tokenId: 0, tokenName: 'tracking poll', email: null, role: 'partner', scopes: [] });

export async function pollTracking(after = 0, pageSize = trackingPageSize): Promise<PollResult> {
  const page = await watchedShipments(after, pageSize);
  const result: PollResult = { polled: page.length, moved: 0, failed: 0, next: page.length === pageSize ? page[page.length - 1].shipmentId : null };
  for (let i = 0; i < page.length; i += atOnce) {
    await Promise.all(
      page.slice(i, i + atOnce).map(async (w) => {
        try {
          if (await pollOne(w)) result.moved++;
        } catch (err) {
          result.failed++;
          logger.warn('tracking poll: a shipment could not be tracked', { shipmentId: w.shipmentId, carrier: w.carrier, error: err instanceof ServiceError ? err.message : (err as Error) });
        }
      }),
    );
  }
  return result;
}

async function pollOne(w: TrackingWatch): Promise<boolean> {
  const order = await getOrder(w.orderId);
  const shipment = order?.shipments.find((s) => s.id === w.shipmentId);
  const carrier = carrierFor(w.carrier);
  // Gone, final, voided, or no longer trackable: nothing left to follow.
  if (!order || !shipment || !carrier?.track || shipment.voidedAt || shipment.status === 'delivered' || shipment.status === 'returned') {
    await forgetWatchedShipment(w.shipmentId);
    return false;
  }
  const tracked = await carrier.track({ accountId: w.accountId, trackingNumber: w.trackingNumber, reference: shipment.carrierReference ?? null, destinationCountry: order.shippingAddress.country });
  if (!tracked.status || tracked.status === shipment.status || !canMoveShipment(shipment.status, tracked.status)) return false;
  const { changed } = await moveShipment(pollPrincipal(w.accountId), { orderId: w.orderId, shipmentId: w.shipmentId }, tracked.status, tracked.occurredAt ?? undefined);
  return changed;
}

/** One message of the tracking-poll queue: a page, and the next page queued when this one was full. */
export async function runTrackingPoll(message: { kind: 'scheduled' } | { kind: 'page'; after: number }): Promise<PollResult & { after: number }> {
  const after = message.kind === 'page' && Number.isSafeInteger(message.after) && message.after > 0 ? message.after : 0;
  const result = await pollTracking(after);
  if (result.next !== null) await queues().send('trackingPoll', { kind: 'page', after: result.next });
  return { after, ...result };
}
