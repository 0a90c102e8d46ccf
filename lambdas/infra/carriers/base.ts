import { BadGateway, ServiceError, ValidationFailed } from '#core/errors';
import { CarrierAnswerUnreadable } from '#core/shipping/carriers/common';
import type { CarrierPort } from '#core/shipping/carrier';
import type { CarrierAccount, CarrierEnvironment, ExternalCarrier } from '#core/shipping/carrier-accounts';
import { carrierCredentials } from '../carrier-credentials';
import { carrierTokens, OAuthTokenCache, type OAuthToken } from './oauth';
import { CarrierError, carrierFailure, type CarrierHttp } from './http';
import { GifUnreadable } from './gif';

/**
 * What the four adapters share: where each carrier's API lives, the account's credentials, OAuth
 * tokens from the shared cache (asked again once when the carrier refuses one), and one way of
 * turning every failure into the answer the service gives.
 */

/**
 * Each carrier's hosts per `environment` of the carrier account. `CARRIER_API_URL` (set by the
 * twin to its fake carriers, never on a deployed stage) replaces them all with
 * `<CARRIER_API_URL>/<carrier>`.
 */
export const carrierHosts: Record<ExternalCarrier, Record<CarrierEnvironment, string>> = {
  fedex: { sandbox: 'https://apis-sandbox.fedex.com', production: 'https://apis.fedex.com' },
  ups: { sandbox: 'https://wwwcie.ups.com', production: 'https://onlinetools.ups.com' },
  dhl: { sandbox: 'https://express.api.dhl.com/mydhlapi/test', production: 'https://express.api.dhl.com/mydhlapi' },
  usps: { sandbox: 'https://apis-tem.usps.com', production: 'https://apis.usps.com' },
};

export function carrierBaseUrl(carrier: ExternalCarrier, environment: CarrierEnvironment): string {
  const fake = process.env.CARRIER_API_URL?.trim();
  return fake ? `${fake.replace(/\/+$/, '')}/${carrier}` : carrierHosts[carrier][environment];
}

/** The account's credentials for `carrier`, or a 422 naming `carrier` that says how to connect it. */
export async function accountFor(carrier: ExternalCarrier, accountId: number, field = 'carrier'): Promise<CarrierAccount> {
  const account = await carrierCredentials().get(accountId, carrier);
  if (!account) throw new ValidationFailed({ [field]: [`No ${carrier} account is connected; connect one with PUT /v1/shipping/carriers/${carrier}.`] }, `No ${carrier} account is connected.`);
  return account;
}

/**
 * Calls `use` with a bearer token for `account`; when the carrier answers 401 the token is
 * forgotten and one fresh token is tried (a token revoked or expired early), never more.
 */
export async function withToken<T>(carrier: ExternalCarrier, tokenUrl: string, account: CarrierAccount, fetchToken: () => Promise<OAuthToken>, use: (token: string) => Promise<T>): Promise<T> {
  const key = OAuthTokenCache.key(carrier, tokenUrl, account.clientId, account.clientSecret);
  const token = await carrierTokens.token(key, fetchToken);
  try {
    return await use(token);
  } catch (err) {
    if (!(err instanceof CarrierError) || err.code !== 'unauthorized' || err.status !== 401) throw err;
    carrierTokens.forget(key);
    return use(await carrierTokens.token(key, fetchToken));
  }
}

/** A token answer `{access_token, expires_in}` (UPS sends expires_in as a string). */
export function readToken(carrier: string, body: unknown): OAuthToken {
  const b = body as { access_token?: unknown; expires_in?: unknown };
  const expiresIn = Number(b?.expires_in);
  if (typeof b?.access_token !== 'string' || !b.access_token || !Number.isFinite(expiresIn)) throw new CarrierAnswerUnreadable(carrier, 'the token answer has no access_token or expires_in');
  return { accessToken: b.access_token, expiresIn };
}

/** Runs a carrier call and answers every failure the service's way (422, 502, 503, 504). */
export async function guarded<T>(carrier: string, call: () => Promise<T>, field = 'carrier'): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    if (err instanceof CarrierError) throw carrierFailure(err, field);
    if (err instanceof CarrierAnswerUnreadable || err instanceof GifUnreadable) throw new BadGateway(`${carrier} answered what cannot be used: ${err.message}`, { carrier });
    throw err;
  }
}

type Operation = 'createShipment' | 'voidShipment' | 'track' | 'rate';

/** A port operation given the account its caller's `accountId` names. */
type WithAccount<K extends Operation> = (account: CarrierAccount, input: Parameters<NonNullable<CarrierPort[K]>>[0]) => ReturnType<NonNullable<CarrierPort[K]>>;

/**
 * The port's operations of one carrier from what each does with the caller's connected account:
 * every call finds the account (`accountFor`) and answers failures the service's way (`guarded`).
 */
export function accountOperations<K extends Operation>(carrier: ExternalCarrier, operations: { [P in K]: WithAccount<P> }): Pick<CarrierPort, K> {
  const port: Partial<Record<Operation, unknown>> = {};
  for (const [name, operation] of Object.entries(operations) as [Operation, (account: CarrierAccount, input: { accountId: number }) => Promise<unknown>][]) {
    port[name] = (input: { accountId: number }) => guarded(carrier, async () => operation(await accountFor(carrier, input.accountId), input));
  }
  return port as Pick<CarrierPort, K>;
}

export type { CarrierHttp };
