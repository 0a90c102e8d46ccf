import { ValidationFailed } from '#core/errors';
import { checkCarrierAccount, type CarrierAccount, type CarrierAccountSummary, type ExternalCarrier } from '#core/shipping/carrier-accounts';
import { carrierCredentials } from '#infra/carrier-credentials';

/**
 * Connects (or replaces) the account's `carrier` account from a PUT body: checked per carrier
 * first (422 naming each field, nothing stored), then one secret per account and carrier, so a
 * repeated PUT writes the same entry again and nothing grows.
 */
export async function connectCarrier(accountId: number, carrier: ExternalCarrier, body: Record<string, unknown>): Promise<CarrierAccount> {
  const checked = checkCarrierAccount(carrier, body);
  if ('problems' in checked) throw new ValidationFailed(checked.problems);
  await carrierCredentials().put(accountId, checked.account);
  return checked.account;
}

/** Disconnecting a carrier that is not connected is not an error. */
export async function disconnectCarrier(accountId: number, carrier: ExternalCarrier): Promise<void> {
  await carrierCredentials().remove(accountId, carrier);
}

/** The account's connected carriers, never their secrets. */
export async function connectedCarriers(accountId: number): Promise<CarrierAccountSummary[]> {
  return carrierCredentials().list(accountId);
}
