import { createHash } from 'node:crypto';
import type { ManifestItem } from '#core/manifests/submission';
import { classifyShipments, type Regime } from '#core/customs/regime';
import { regimeRulesAt } from '#core/customs/regime-rules';
import { argentineDate, taxRulesAt, type AppliedTaxRules } from '#core/customs/tax-rules';
import { tariffRatesOf, type TariffRates } from '#core/customs/tariff-rates';
import { calculateLines } from '#core/customs/landed-cost';
import type { Breakdown, ShipmentCalculation } from '#core/customs/calculate';
import { toCentsExact, toNumber } from '#core/customs/money';
import { classifyInputOf, type Classification } from '#core/tariff/classifier';
import { tariffClassifier } from '#infra/tariff/classifier-port';
import type { QuoteRequest } from '#core/customs/quote-request';
import { now } from '#infra/clock';

/**
 * A landed-cost quote (`POST /v1/customs/calculate`, issue 17 item 3): one product line valued
 * as the manifest pipeline values a shipment of that one line. The pipeline's own pieces do the
 * work, in its order: the regime rules (stage 1), the tariff classifier (stage 3) and
 * `calculateLines` (stage 4, the one calculation of a shipment), so a quote and a processed product
 * with the same inputs give the same numbers and explanation lines. What a quote cannot know is
 * the consignee (stage 2): a personal quote is within the yearly quota (the franchise applies).
 *
 * Nothing is stored: the quote only reads (the tariff table in force). `calculation_id` is a
 * digest of the inputs and the answer, so the same quote under the same rules has the same id.
 */

const QUOTE_AWB = 'QUOTE';
const QUOTE_KEY = 'quote';

export const regimeNames: Record<Regime, string> = { P: 'personal', C: 'commercial', X: 'prohibited' };
const regimeCodes = { personal: 'P', commercial: 'C' } as const;

export interface QuoteRegime {
  regime: Regime;
  regime_name: string;
  values: { declared_value: number; fob: number; freight: number; insurance: number; cif: number; currency: string };
  duties_and_taxes: Breakdown;
  total_landed_cost: number;
}

export interface Quote extends Omit<QuoteRegime, 'regime'> {
  calculation_id: string;
  regime_used: Regime;
  destination_country: string;
  origin_country: string;
  quantity: number;
  weight_kg: number | null;
  chargeable_kg: number;
  regime_requested: QuoteRequest['regime'];
  regime_reasons: string[];
  ncm: {
    code: string;
    description: string;
    duty_rate: number;
    vat_rate: number;
    source: Classification['source'];
    confidence: number;
    reason: string;
    /** The duty, statistics fee and VAT used, each with its source or marked unverified. */
    rates: TariffRates;
  };
  rules: { effective_from: string; source: string; overridden: readonly string[]; regime_rules_effective_from: string; regime_rules_source: string };
  /** With `compare_regimes`: personal and commercial, each with `difference` = its landed cost minus the one used. */
  regimes?: (QuoteRegime & { difference: number })[];
  calculated_at: string;
}

/** The quote's line as the manifest line it stands for (spec 2.5 field names). */
export function quoteItem(body: QuoteRequest): ManifestItem {
  return {
    originCountry: body.origin_country,
    consigneeName: 'Landed-cost quote',
    consigneeProvince: 'Buenos Aires',
    itemDescription: body.description,
    hsCode: body.hs_code,
    fobValueUsd: body.declared_value,
    totalWeightKg: body.weight,
    amountOfItems: body.quantity,
  };
}

function regimeOf(calc: ShipmentCalculation, body: QuoteRequest): QuoteRegime {
  const b = calc.products.get(QUOTE_KEY)!;
  return {
    regime: calc.regime,
    regime_name: regimeNames[calc.regime],
    values: {
      declared_value: body.declared_value,
      fob: calc.totals.fob,
      freight: calc.totals.freight,
      insurance: calc.totals.insurance,
      cif: calc.totals.cif,
      currency: calc.currency,
    },
    duties_and_taxes: b,
    total_landed_cost: b.ddp_value,
  };
}

export async function quoteLandedCost(body: QuoteRequest, at: Date = now()): Promise<Quote> {
  const item = quoteItem(body);
  const regimeRules = regimeRulesAt(at);
  const decision = classifyShipments([{ itemKey: QUOTE_KEY, awb: QUOTE_AWB, data: item }], regimeRules).get(QUOTE_KEY)!;
  const tariff = await (await tariffClassifier()).classify(classifyInputOf(item));
  const rules: AppliedTaxRules = taxRulesAt(at);
  const rates = tariffRatesOf({
    ncm: tariff.ncm_code,
    duty_rate: tariff.duty_rate,
    duty_source: tariff.duty_source,
    statistics_fee_rate: rules.statistics_fee_rate,
    date: argentineDate(at),
  });

  // The regime: what cannot clear stays X whatever was asked; otherwise the one asked for, or the rules' own.
  let used: Regime;
  const reasons = [...decision.reasons];
  if (decision.regime === 'X') used = 'X';
  else if (body.regime === 'auto') used = decision.regime;
  else {
    used = regimeCodes[body.regime];
    if (used !== decision.regime) reasons.unshift(`${body.regime} as requested; the regime rules alone would make it ${regimeNames[decision.regime]}`);
    else reasons.unshift(`${body.regime} as requested`);
  }
  if (used === 'P') reasons.push('quoted within the yearly quota of personal shipments: the franchise applies (a consignee whose quota is used up pays as commercial)');

  const calculate = (regime: Regime) =>
    calculateLines(
      QUOTE_AWB,
      [{ itemKey: QUOTE_KEY, data: item, regime, taxIdValid: regime === 'P', dutyRate: tariff.duty_rate, vatRate: rates.vat.rate }],
      rules,
      { freight_usd: body.freight, insurance_usd: body.insurance },
    );
  const calc = calculate(used);
  const main = regimeOf(calc, body);

  let regimes: Quote['regimes'];
  if (body.compare_regimes) {
    // Goods that cannot clear under the courier regime have nothing to compare.
    regimes =
      used === 'X'
        ? []
        : (['P', 'C'] as const).map((r) => {
            const entry = r === used ? main : regimeOf(calculate(r), body);
            return { ...entry, difference: toNumber(toCentsExact(entry.total_landed_cost) - toCentsExact(main.total_landed_cost)) };
          });
  }

  const answer: Omit<Quote, 'calculation_id' | 'calculated_at'> = {
    destination_country: body.destination_country,
    origin_country: body.origin_country,
    quantity: body.quantity ?? 1,
    weight_kg: body.weight ?? null,
    chargeable_kg: calc.chargeable_kg,
    regime_requested: body.regime,
    regime_used: main.regime,
    regime_name: main.regime_name,
    regime_reasons: reasons,
    values: main.values,
    duties_and_taxes: main.duties_and_taxes,
    total_landed_cost: main.total_landed_cost,
    ncm: {
      code: tariff.ncm_code,
      description: tariff.description,
      duty_rate: tariff.duty_rate,
      vat_rate: rates.vat.rate,
      source: tariff.source,
      confidence: tariff.confidence,
      reason: tariff.reason,
      rates,
    },
    rules: {
      effective_from: calc.rules.effective_from,
      source: calc.rules.source,
      overridden: calc.rules.overridden,
      regime_rules_effective_from: regimeRules.effective_from,
      regime_rules_source: regimeRules.source,
    },
    ...(regimes ? { regimes } : {}),
  };
  const digest = createHash('sha256').update(JSON.stringify({ input: body, answer })).digest('hex');
  return { calculation_id: `calc_${digest.slice(0, 32)}`, ...answer, calculated_at: at.toISOString() };
}
