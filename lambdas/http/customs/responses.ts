import * as v from 'valibot';
import type { RouteResponses } from '#catalog/types';
import { data, failure, integer, money, nullable, tariffRates, timestamp } from '../kit/responses';

/** The answers of the quota, client-info and landed-cost routes (spec 2.7, 4.6), for openapi.json. */

const taxIdRecord = {
  tax_id: v.pipe(v.string(), v.regex(/^\d+$/)),
  tax_id_formatted: v.string(),
  current_quota: v.strictObject({ quota: v.pipe(integer, v.minValue(0), v.maxValue(5)), status: integer, domicilio: v.string() }),
  historical_records_count: integer,
};
const awbNotFound = failure('No shipment with this AWB in the account', ['not_found']);
/** A calculation's figures: duties, taxes and how each was reached (core/customs). */
export const breakdown = v.strictObject({
  fob_value: money,
  freight: money,
  insurance: money,
  cif_value: money,
  franchise_usd_applied: money,
  duty_base: money,
  duty_rate: v.number(),
  customs_duty: money,
  statistics_fee_rate: v.number(),
  statistics_fee: money,
  vat_base: money,
  vat_rate: v.number(),
  vat: money,
  ddp_value: money,
  amount_to_pay: money,
  currency: v.string(),
  explanation: v.array(v.string()),
});
const regimeCode = v.picklist(['P', 'C', 'X']);
const regimeQuote = {
  regime: regimeCode,
  regime_name: v.string(),
  values: v.strictObject({ declared_value: money, fob: money, freight: money, insurance: money, cif: money, currency: v.string() }),
  duties_and_taxes: breakdown,
  total_landed_cost: money,
};

export const customsResponses = {
  CouriersQuotaCheck: {
    answers: {
      200: data(
        "The tax id's quota record (spec 2.7); with awb_number, whether that AWB already holds one of this year's slots",
        v.strictObject({ ...taxIdRecord, awb_number: v.optional(v.string()), awb_holds_quota: v.optional(v.boolean()) }),
      ),
    },
  },
  CouriersClientInfoCanEdit: {
    answers: {
      200: data(
        "Whether the AWB's tax id can still be corrected (until its batch is closed)",
        v.strictObject({ awb_number: v.string(), can_edit: v.boolean(), current_tax_id: nullable(v.string()), status: v.picklist(['editable', 'cleared']) }),
      ),
      404: awbNotFound,
    },
  },
  CouriersClientInfoUpdate: {
    answers: {
      200: data('Corrected; web services and calculations run again for the AWB', v.strictObject({ awb_number: v.string(), tax_id_formatted: v.string() }), { message: true }),
      404: awbNotFound,
      409: failure('The AWB is cleared: its batch was closed by the broker', ['conflict'], { awb_number: v.string(), closed_at: nullable(timestamp) }),
    },
  },
  CustomsCalculate: {
    answers: {
      200: data(
        'A landed-cost quote of one product line; nothing is stored',
        v.strictObject({
          calculation_id: v.string(),
          destination_country: v.string(),
          origin_country: v.string(),
          quantity: integer,
          weight_kg: nullable(v.number()),
          chargeable_kg: v.number(),
          regime_requested: v.string(),
          regime_used: regimeCode,
          regime_name: v.string(),
          regime_reasons: v.array(v.string()),
          values: regimeQuote.values,
          duties_and_taxes: breakdown,
          total_landed_cost: money,
          ncm: v.strictObject({ code: v.string(), description: v.string(), duty_rate: v.number(), vat_rate: v.number(), rates: tariffRates, source: v.string(), confidence: v.number(), reason: v.string() }),
          rules: v.strictObject({
            effective_from: v.string(),
            source: v.string(),
            overridden: v.array(v.string()),
            regime_rules_effective_from: v.string(),
            regime_rules_source: v.string(),
          }),
          regimes: v.optional(v.array(v.strictObject({ ...regimeQuote, difference: money }))),
          calculated_at: timestamp,
        }),
      ),
    },
  },
  CustomsNcmSearch: {
    answers: {
      200: data(
        'The rows of the tariff table in force that match, best first (words) or in NCM order (a code prefix); rates are percents',
        v.array(
          v.strictObject({
            ncm_code: v.pipe(v.string(), v.regex(/^\d{4}\.\d{2}\.\d{2}$/)),
            description: v.string(),
            description_en: nullable(v.string()),
            duty_rate: v.pipe(v.number(), v.description('Import duty of the NCM, percent (a rate, not a probability)')),
            duty_rate_status: v.picklist(['verified', 'unverified', 'imported']),
            vat_rate: v.pipe(v.number(), v.description("VAT of the NCM on today's Argentine date, percent")),
          }),
        ),
        {
          extra: {
            meta: v.strictObject({
              q: v.string(),
              kind: v.picklist(['code', 'words']),
              total: integer,
              limit: integer,
              table: v.picklist(['builtin', 'imported']),
              table_version: nullable(v.string()),
            }),
          },
        },
      ),
    },
  },
} satisfies Record<string, RouteResponses>;
