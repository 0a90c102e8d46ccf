import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { carrierEnvironments, externalCarriers } from '#core/shipping/carrier-accounts';
import { orderStatuses } from '#core/orders/model';
import { Shipment } from '../orders/responses';
import { data, done, failure, file, integer, money, nullable, timestamp } from '../kit/responses';
import { breakdown } from '../customs/responses';

/** The answers of the shipping routes (labels, tracking updates, carrier accounts), for openapi.json. */

const carrierAccount = { carrier: v.picklist(externalCarriers), account_number: v.string(), environment: v.picklist(carrierEnvironments) };

/** One carrier's rate of a quote; with include_ddp for AR, the landed cost of the customs quote. */
const quotedRate = v.strictObject({
  carrier: v.string(),
  service: v.string(),
  service_name: v.string(),
  transit_days: nullable(integer),
  delivery_date: nullable(v.string()),
  shipping_cost: v.strictObject({ amount: money, currency: v.string() }),
  duties_and_taxes: v.optional(breakdown),
  total_landed_cost: v.optional(money),
});

export const shippingResponses = {
  ShippingQuotes: {
    answers: {
      200: data(
        "The connected carriers' rates, cheapest first; the carriers that failed, with their error",
        v.strictObject({
          quote_id: v.string(),
          valid_until: timestamp,
          currency: v.string(),
          rates: v.array(quotedRate),
          carrier_errors: v.array(v.strictObject({ carrier: v.string(), status: integer, error: v.string(), message: v.string() })),
        }),
      ),
    },
  },
  ShipmentLabel: {
    answers: {
      200: file('The label as a PDF', ['application/pdf'], { 'Content-Disposition': { description: 'inline; filename="<label file>"' } }),
      404: failure('No such shipment of this account, or it has no label (made outside the service)', ['not_found']),
    },
  },
  TrackingUpdates: {
    answers: {
      200: data('The shipment as it is now, and its order\'s status', v.strictObject({ order_id: integer, order_status: v.picklist(orderStatuses), shipment: Shipment }), { message: true }),
      404: failure('No shipment of this account has the tracking number', ['not_found']),
      409: failure('The shipment cannot move to this status from its current one', ['conflict']),
    },
  },
  CarriersList: {
    answers: { 200: data('The connected carrier accounts, account numbers masked, no secret', v.strictObject({ carriers: v.array(v.strictObject({ ...carrierAccount, updated_at: timestamp })) })) },
  },
  CarriersConnect: {
    answers: { 200: data('Connected: the names of the fields stored, never their values', v.strictObject({ ...carrierAccount, credentials: v.array(v.string()) }), { message: true }) },
  },
  CarriersDisconnect: { answers: { 200: done('Disconnected') } },
} satisfies Record<string, RouteResponses>;
