import * as v from 'valibot';
import { carrierEnvironments, externalCarriers } from '#core/shipping/carrier-accounts';

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

const positive = (max: number) => v.pipe(v.number('Must be a number.'), v.finite('Must be a finite number.'), v.gtValue(0, 'Must be greater than 0.'), v.maxValue(max, `Must be at most ${max}.`));
const placeText = (max: number) => v.pipe(v.string('Must be a string.'), v.trim(), v.minLength(1, 'Must not be empty.'), v.maxLength(max, `Must be at most ${max} characters.`));
const Place = v.strictObject({
  country: v.pipe(v.string('Must be a string.'), v.trim(), v.regex(/^[A-Za-z]{2}$/, 'Must be a 2-letter ISO country code.'), v.toUpperCase()),
  postal_code: placeText(20),
  city: placeText(100),
  state: v.optional(v.pipe(v.string('Must be a string.'), v.trim(), v.maxLength(100, 'Must be at most 100 characters.')), ''),
});

/** `POST /v1/shipping/quotes` (issue 18 item 4): the seed system's shape. Units per package, kg and cm by default. */
export const QuoteBody = v.strictObject({
  origin: Place,
  destination: Place,
  packages: v.pipe(
    v.array(
      v.strictObject({
        weight: positive(1000),
        length: positive(500),
        width: positive(500),
        height: positive(500),
        weight_unit: v.optional(v.picklist(['kg', 'lb'], 'Must be kg or lb.'), 'kg'),
        dimension_unit: v.optional(v.picklist(['cm', 'in'], 'Must be cm or in.'), 'cm'),
      }),
      'Must be an array of packages.',
    ),
    v.minLength(1, 'At least one package is required.'),
    v.maxLength(50, 'At most 50 packages.'),
  ),
  declared_value: v.optional(v.pipe(v.number('Must be a number.'), v.finite('Must be a finite number.'), v.minValue(0, 'Must not be negative.'), v.maxValue(10_000_000, 'Must be at most 10000000.'))),
  currency: v.optional(
    v.pipe(v.string('Must be a string.'), v.trim(), v.toUpperCase(), v.check((c) => c === 'USD', 'Only USD is supported until exchange rates exist.')),
    'USD',
  ),
  carriers: v.optional(
    v.pipe(
      v.array(v.picklist(externalCarriers, `Must be one of ${externalCarriers.join(', ')}.`), 'Must be an array of carrier names.'),
      v.minLength(1, 'Name at least one carrier, or leave carriers out for every connected one.'),
      v.maxLength(4, 'At most 4 carriers.'),
    ),
  ),
  include_ddp: v.optional(v.boolean('Must be true or false.'), false),
  /** For include_ddp: what the goods are, for their tariff code (as in POST /v1/customs/calculate). */
  description: v.optional(v.pipe(v.string('Must be a string.'), v.trim(), v.minLength(1, 'Must not be empty.'), v.maxLength(1000, 'Must be at most 1000 characters.'))),
  hs_code: v.optional(v.pipe(v.string('Must be a string.'), v.trim(), v.regex(/^[0-9.]{4,20}$/, 'Must be a tariff code: digits and dots, 4 to 20.'))),
});

export type QuoteInput = v.InferOutput<typeof QuoteBody>;
