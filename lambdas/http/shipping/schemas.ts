import * as v from 'valibot';
import { carrierEnvironments, externalCarriers } from '../../core/shipping/carrier-accounts';

/** `{carrier}` in `/v1/shipping/carriers/{carrier}`: one of the external carriers (not `despacho`, which needs no account). */
export const CarrierParams = v.object({ carrier: v.picklist(externalCarriers, `Must be one of ${externalCarriers.join(', ')}.`) });

const credential = v.pipe(v.string('Must be a string.'), v.regex(/^[\x21-\x7e]{1,256}$/, 'Must be 1 to 256 printable characters, no spaces.'));
const digits = v.pipe(v.string('Must be a string.'), v.regex(/^[A-Za-z0-9]{1,20}$/, 'Must be letters or digits.'));

/**
 * Every field any carrier takes. Which ones a carrier needs, which it does not take, and the form
 * of its account number are checked in `checkCarrierAccount` (core/shipping/carrier-accounts.ts),
 * which names the field in the 422.
 */
export const CarrierAccountBody = v.strictObject({
  client_id: v.optional(credential),
  client_secret: v.optional(credential),
  account_number: v.optional(digits),
  environment: v.optional(v.picklist(carrierEnvironments, `Must be one of ${carrierEnvironments.join(', ')}.`)),
  crid: v.optional(digits),
  mailer_id: v.optional(digits),
});
