import { randomUUID } from 'node:crypto';
import type { CarrierPort } from '#core/shipping/carrier';
import { CarrierAnswerUnreadable, requirePhones } from '#core/shipping/carriers/common';
import { upsMessage, upsParseRates, upsParseShipment, upsParseTracking, upsRateRequest, upsServices, upsShipRequest, upsVoided } from '#core/shipping/carriers/ups';
import type { CarrierAccount } from '#core/shipping/carrier-accounts';
import { nowIso } from '../clock';
import { imageLabelPdf } from '../label-pdf';
import { accountOperations, carrierBaseUrl, readToken, withToken } from './base';
import { decodeGif } from './gif';
import { carrierHttp, type CarrierHttpOptions } from './http';

/**
 * UPS behind the carrier port: OAuth client credentials (basic auth, `x-merchant-id` the shipper
 * number), then Shipping and Rating API v2409 and Tracking API v1. Every call carries the
 * `transId` and `transactionSrc` headers UPS asks for. UPS's GIF labels become one 4x6 PDF.
 */
export function upsCarrier(options: CarrierHttpOptions = {}): CarrierPort {
  const http = carrierHttp('ups', upsMessage, options);
  const call = async <T>(account: CarrierAccount, method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, idempotent: boolean) => {
    const base = carrierBaseUrl('ups', account.environment);
    const tokenUrl = `${base}/security/v1/oauth/token`;
    const fetchToken = async () =>
      readToken(
        'ups',
        await http.request({
          method: 'POST',
          url: tokenUrl,
          headers: { authorization: `Basic ${Buffer.from(`${account.clientId}:${account.clientSecret}`).toString('base64')}`, 'x-merchant-id': account.accountNumber },
          form: { grant_type: 'client_credentials' },
          idempotent: true,
        }),
      );
    return withToken('ups', tokenUrl, account, fetchToken, (token) =>
      http.request<T>({
        method,
        url: `${base}${path}`,
        headers: { authorization: `Bearer ${token}`, transId: randomUUID().replace(/-/g, ''), transactionSrc: 'despacho' },
        body,
        idempotent,
      }),
    );
  };
  return {
    name: 'ups',
    services: Object.keys(upsServices),
    ...accountOperations('ups', {
      createShipment: async (account, req) => {
        requirePhones('ups', req);
        const shipped = upsParseShipment(await call(account, 'POST', '/api/shipments/v2409/ship', upsShipRequest(req, account.accountNumber), false));
        const label = imageLabelPdf(shipped.gifs.map(decodeGif), `Label ${shipped.trackingNumber}`, nowIso());
        return { trackingNumber: shipped.trackingNumber, estimatedDelivery: null, label, cost: shipped.cost, reference: shipped.reference };
      },
      voidShipment: async (account, ref) => {
        const answer = await call(account, 'DELETE', `/api/shipments/v2409/void/cancel/${encodeURIComponent(ref.reference ?? ref.trackingNumber)}`, undefined, true);
        if (!upsVoided(answer)) throw new CarrierAnswerUnreadable('ups', 'the void answer does not say Voided');
      },
      track: async (account, ref) => upsParseTracking(await call(account, 'GET', `/api/track/v1/details/${encodeURIComponent(ref.trackingNumber)}?locale=en_US&returnSignature=false`, undefined, true)),
      rate: async (account, req) => upsParseRates(await call(account, 'POST', '/api/rating/v2409/Shop', upsRateRequest(req, account.accountNumber), true)),
    }),
  };
}
