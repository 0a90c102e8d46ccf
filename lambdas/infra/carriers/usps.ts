import type { CarrierPort } from '#core/shipping/carrier';
import { CarrierAnswerUnreadable, requirePhones } from '#core/shipping/carriers/common';
import {
  uspsCheck,
  uspsLabelRequest,
  uspsMessage,
  uspsParseLabel,
  uspsParseRate,
  uspsParseTracking,
  uspsPaymentAuthorization,
  uspsRateRequests,
  uspsServices,
} from '#core/shipping/carriers/usps';
import type { CarrierAccount } from '#core/shipping/carrier-accounts';
import { accountOperations, carrierBaseUrl, readToken, withToken } from './base';
import { carrierHttp, type CarrierHttpOptions } from './http';
import { carrierTokens, OAuthTokenCache } from './oauth';

/**
 * USPS behind the carrier port: OAuth client credentials, a Payments 3.0 authorization token
 * (the account's CRID, mailer ID and EPS account; cached like an access token, 8 hours), then
 * Labels, Prices and Tracking 3.0.
 */
export function uspsCarrier(options: CarrierHttpOptions = {}): CarrierPort {
  const http = carrierHttp('usps', uspsMessage, options);
  const call = async <T>(account: CarrierAccount, method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, idempotent: boolean, headers: Record<string, string> = {}) => {
    const base = carrierBaseUrl('usps', account.environment);
    const tokenUrl = `${base}/oauth2/v3/token`;
    const fetchToken = async () =>
      readToken('usps', await http.request({ method: 'POST', url: tokenUrl, body: { grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.clientSecret }, idempotent: true }));
    return withToken('usps', tokenUrl, account, fetchToken, (token) => http.request<T>({ method, url: `${base}${path}`, headers: { authorization: `Bearer ${token}`, ...headers }, body, idempotent }));
  };
  const paymentToken = (account: CarrierAccount) => {
    const url = `${carrierBaseUrl('usps', account.environment)}/payments/v3/payment-authorization`;
    const key = OAuthTokenCache.key('usps-payment', url, `${account.clientId}/${account.crid}/${account.mailerId}/${account.accountNumber}`, account.clientSecret);
    return carrierTokens.token(key, async () => {
      const answer = await call<{ paymentAuthorizationToken?: unknown }>(account, 'POST', '/payments/v3/payment-authorization', uspsPaymentAuthorization({ crid: account.crid ?? '', mailerId: account.mailerId ?? '', accountNumber: account.accountNumber }), true);
      if (typeof answer?.paymentAuthorizationToken !== 'string') throw new CarrierAnswerUnreadable('usps', 'the payment authorization has no paymentAuthorizationToken');
      return { accessToken: answer.paymentAuthorizationToken, expiresIn: 8 * 3600 };
    });
  };
  return {
    name: 'usps',
    services: Object.keys(uspsServices),
    ...accountOperations('usps', {
      createShipment: async (account, req) => {
        uspsCheck(req);
        requirePhones('usps', req);
        const { path, body } = uspsLabelRequest(req);
        const payment = await paymentToken(account);
        const answer = await call(account, 'POST', path, body, false, { 'x-payment-authorization-token': payment, accept: 'application/vnd.usps.labels+json' });
        return uspsParseLabel(answer);
      },
      voidShipment: async (account, ref) => {
        const path = ref.destinationCountry === 'US' ? `/labels/v3/label/${encodeURIComponent(ref.trackingNumber)}` : `/international-labels/v3/international-label/${encodeURIComponent(ref.trackingNumber)}`;
        await call(account, 'DELETE', path, undefined, true, { 'x-payment-authorization-token': await paymentToken(account) });
      },
      track: async (account, ref) => uspsParseTracking(await call(account, 'GET', `/tracking/v3/tracking/${encodeURIComponent(ref.trackingNumber)}?expand=SUMMARY`, undefined, true)),
      rate: async (account, req) => {
        if (req.origin.country !== 'US') return [];
        const asks = uspsRateRequests(req, account.accountNumber);
        return Promise.all(asks.map(async (a) => uspsParseRate(a.service, await call(account, 'POST', a.path, a.body, true), req.packages.length)));
      },
    }),
  };
}
