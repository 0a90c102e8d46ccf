import * as v from 'valibot';
import { checkTaxId } from '#core/customs/tax-id';
import { identifier, intQuery, text } from '../kit/schemas';
import { maxNcmQueryLength, ncmSearchLimit } from '#core/tariff/ncm-search';
import { isoAlpha2 } from '#core/manifests/countries';
import { optId, optText } from '#core/manifests/submission';
import { quoteRegimes } from '#core/customs/quote-request';

/**
 * Bodies of the tax-id quota and client-info endpoints (spec 4.6). A tax id is a CUIT or CUIL
 * (11 digits, check digit checked) or a DNI (7 or 8 digits), hyphens, dots and spaces allowed:
 * `20-12345678-6`. An invalid one is 422 on `tax_id`, naming what failed (e.g. the check digit).
 */
export const TaxIdField = v.pipe(
  v.string('Must be a string.'),
  v.trim(),
  v.nonEmpty('Must not be empty.'),
  v.maxLength(20, 'Must be at most 20 characters.'),
  v.check(
    (s) => checkTaxId(s).valid,
    (issue) => `Not a valid CUIT, CUIL or DNI: ${checkTaxId(String(issue.input)).reason}.`,
  ),
);

const Awb = identifier(100);

export const QuotaCheckBody = v.object({
  tax_id: TaxIdField,
  awb_number: v.optional(Awb),
});

export const CanEditBody = v.object({
  awb_number: Awb,
});

export const ClientInfoBody = v.object({
  awb_number: Awb,
  tax_id: TaxIdField,
});

/* ---------------- POST /v1/customs/calculate: a landed-cost quote ---------------- */

/** Missing required keys read as "Required."; a body that is not an object as "Must be an object.". */
const objectMessage = (issue: v.BaseIssue<unknown>) =>
  issue.received === 'undefined' && issue.expected?.startsWith('"') ? 'Required.' : 'Must be an object.';

const maxNumber = v.maxValue<number, number, string>(Number.MAX_SAFE_INTEGER, `Must be at most ${Number.MAX_SAFE_INTEGER}.`);
const jsonNumber = () => v.pipe(v.number('Must be a number (not text).'), v.finite('Must be a finite number.'));

/** A finite JSON number above 0, at most 2^53 - 1. */
const positiveAmount = () => v.pipe(jsonNumber(), v.gtValue(0, 'Must be greater than 0.'), maxNumber);
/** A finite JSON number of 0 or more, at most 2^53 - 1. */
const amount = () => v.pipe(jsonNumber(), v.minValue(0, 'Must not be negative.'), maxNumber);
/** A whole JSON number of 1 or more, at most 2^53 - 1. */
const count = () => v.pipe(jsonNumber(), v.integer('Must be a whole number.'), v.minValue(1, 'Must be at least 1.'), maxNumber);

/** ISO 3166-1 alpha-2 in any case, returned upper-case; `only` further limits the codes taken. */
const country = (only?: { code: string; why: string }) =>
  v.pipe(
    v.string('Must be a string.'),
    v.trim(),
    v.toUpperCase(),
    v.check(
      (c) => isoAlpha2.has(c) && (!only || c === only.code),
      (issue) =>
        only && isoAlpha2.has(String(issue.input))
          ? `${only.why}; ${String(issue.input)} is not.`
          : 'Must be an ISO 3166-1 alpha-2 country code (two letters, e.g. AR, CN, US).',
    ),
  );

/**
 * A landed-cost quote of one product line (docs/merchants/landed-cost.md). The line reads as a
 * manifest line (spec 2.5): `declared_value` is its FOB (`fobValueUsd`, the whole line), `weight`
 * its net kg (`totalWeightKg`), `quantity` its units (`amountOfItems`), `hs_code` and
 * `description` its `hsCode` and `itemDescription`, with the same bounds.
 */
export const CalculateBody = v.pipe(
  v.object(
    {
      destination_country: country({ code: 'AR', why: 'Only AR (Argentina) is supported as the destination country' }),
      origin_country: v.optional(country(), 'US'),
      currency: v.optional(
        v.pipe(
          v.string('Must be a string.'),
          v.trim(),
          v.toUpperCase(),
          v.check(
            (c) => c === 'USD',
            (issue) =>
              /^[A-Z]{3}$/.test(String(issue.input))
                ? `Only USD is supported until exchange rates exist; ${String(issue.input)} is not.`
                : 'Must be a currency code: USD.',
          ),
        ),
        'USD',
      ),
      declared_value: positiveAmount(),
      weight: v.optional(amount()),
      hs_code: optId(20),
      description: optText(1000),
      freight: v.optional(amount()),
      insurance: v.optional(amount()),
      quantity: v.optional(count()),
      regime: v.optional(v.picklist(quoteRegimes, `Must be one of ${quoteRegimes.join(', ')}.`), 'auto'),
      compare_regimes: v.optional(v.boolean('Must be true or false.'), false),
    },
    objectMessage,
  ),
  v.forward(
    v.partialCheck(
      [['hs_code'], ['description']],
      (b) => b.hs_code !== undefined || b.description !== undefined,
      'Send hs_code or description (or both): without a code, the tariff code is classified from the description.',
    ),
    ['hs_code'],
  ),
);

/**
 * GET /v1/customs/tariff/ncm (issue 40, item 4): `q` is words (Spanish or English) or a code prefix
 * (digits, dots allowed: `8517`, `8517.13`); `limit` 1 to 50, 20 by default.
 */
export const NcmSearchQuery = v.object({
  q: v.pipe(
    text(maxNcmQueryLength, 'Must not be empty: type words of the product (Spanish or English) or the start of an NCM code, e.g. 8517 or 8517.13.'),
    v.check((s) => !/^[\d.\s]+$/.test(s) || /\d/.test(s), 'Must hold a digit or a word: dots alone search nothing.'),
    v.check((s) => !/^[\d.\s]+$/.test(s) || s.replace(/\D/g, '').length <= 8, 'A code prefix has at most 8 digits (an NCM is dddd.dd.dd).'),
  ),
  limit: v.optional(intQuery(1, ncmSearchLimit.max), String(ncmSearchLimit.default)),
});
