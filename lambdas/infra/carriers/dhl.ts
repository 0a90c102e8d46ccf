import { randomUUID } from 'node:crypto';
import type { CarrierPort } from '#core/shipping/carrier';
import { requirePhones } from '#core/shipping/carriers/common';
import { dhlMessage, dhlParseRates, dhlParseShipment, dhlParseTracking, dhlRateRequest, dhlServices, dhlShipRequest } from '#core/shipping/carriers/dhl';
import type { CarrierAccount } from '#core/shipping/carrier-accounts';
import { accountOperations, carrierBaseUrl } from './base';
import { carrierHttp, type CarrierHttpOptions } from './http';

/**
 * DHL Express behind the carrier port: MyDHL API with basic auth (the API username and
 * password), a `Message-Reference` per request. No `voidShipment`: MyDHL has no void, and DHL
 * Express bills a waybill only once it is tendered.
 */
export function dhlCarrier(options: CarrierHttpOptions = {}): CarrierPort {
  const http = carrierHttp('dhl', dhlMessage, options);
  const call = <T>(account: CarrierAccount, method: 'GET' | 'POST', path: string, body: unknown, idempotent: boolean) =>
    http.request<T>({
      method,
      url: `${carrierBaseUrl('dhl', account.environment)}${path}`,
      headers: {
        authorization: `Basic ${Buffer.from(`${account.clientId}:${account.clientSecret}`).toString('base64')}`,
        'message-reference': randomUUID(),
        'message-reference-date': new Date().toUTCString(),
      },
      body,
      idempotent,
    });
  return {
    name: 'dhl',
    services: Object.keys(dhlServices),
    ...accountOperations('dhl', {
      createShipment: async (account, req) => {
        requirePhones('dhl', req);
        return dhlParseShipment(await call(account, 'POST', '/shipments', dhlShipRequest(req, account.accountNumber), false));
      },
      track: async (account, ref) => dhlParseTracking(await call(account, 'GET', `/shipments/${encodeURIComponent(ref.trackingNumber)}/tracking?trackingView=all-checkpoints&levelOfDetail=shipment`, undefined, true)),
      rate: async (account, req) => dhlParseRates(await call(account, 'POST', '/rates', dhlRateRequest(req, account.accountNumber), true)),
    }),
  };
}
