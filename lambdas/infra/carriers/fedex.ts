import type { CarrierPort } from '#core/shipping/carrier';
import { requirePhones } from '#core/shipping/carriers/common';
import {
  fedexCancelRequest,
  fedexMessage,
  fedexParseRates,
  fedexParseShipment,
  fedexParseTracking,
  fedexRateRequest,
  fedexServices,
  fedexShipRequest,
  fedexTrackRequest,
} from '#core/shipping/carriers/fedex';
import type { CarrierAccount } from '#core/shipping/carrier-accounts';
import { accountOperations, carrierBaseUrl, readToken, withToken } from './base';
import { carrierHttp, type CarrierHttpOptions } from './http';

/** FedEx behind the carrier port: OAuth client credentials, then Ship, Rate and Track API v1. */
export function fedexCarrier(options: CarrierHttpOptions = {}): CarrierPort {
  const http = carrierHttp('fedex', fedexMessage, options);
  const call = async <T>(account: CarrierAccount, method: 'POST' | 'PUT', path: string, body: unknown, idempotent: boolean) => {
    const base = carrierBaseUrl('fedex', account.environment);
    const tokenUrl = `${base}/oauth/token`;
    const fetchToken = async () =>
      readToken('fedex', await http.request({ method: 'POST', url: tokenUrl, form: { grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.clientSecret }, idempotent: true }));
    return withToken('fedex', tokenUrl, account, fetchToken, (token) =>
      http.request<T>({ method, url: `${base}${path}`, headers: { authorization: `Bearer ${token}`, 'x-locale': 'en_US' }, body, idempotent }),
    );
  };
  return {
    name: 'fedex',
    services: Object.keys(fedexServices),
    ...accountOperations('fedex', {
      createShipment: async (account, req) => {
        requirePhones('fedex', req);
        return fedexParseShipment(await call(account, 'POST', '/ship/v1/shipments', fedexShipRequest(req, account.accountNumber), false), req.packages.length);
      },
      voidShipment: async (account, ref) => {
        await call(account, 'PUT', '/ship/v1/shipments/cancel', fedexCancelRequest(account.accountNumber, ref.trackingNumber), true);
      },
      track: async (account, ref) => fedexParseTracking(await call(account, 'POST', '/track/v1/trackingnumbers', fedexTrackRequest(ref.trackingNumber), true)),
      rate: async (account, req) => fedexParseRates(await call(account, 'POST', '/rate/v1/rates/quotes', fedexRateRequest(req, account.accountNumber), true)),
    }),
  };
}
