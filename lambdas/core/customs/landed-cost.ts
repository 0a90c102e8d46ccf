/**
 * One shipment's duties and taxes from its manifest lines: the one calculation the pipeline's
 * calculations stage runs per AWB and `POST /v1/customs/calculate` runs for a quote (one line).
 * Both call this, so a quote and a processed product with the same inputs give the same numbers
 * and the same explanation lines (docs/merchants/landed-cost.md).
 *
 * What it reads of each line is what the pipeline's earlier stages found: the regime (stage 1,
 * turned commercial by stage 2 when the yearly quota is used up), whether the consignee's tax id
 * is valid (stage 2) and the NCM duty rate (stage 3).
 */
import type { ManifestItem } from '../manifests/submission';
import { calculateShipment, type Breakdown, type ShipmentCalculation } from './calculate';
import { shipmentRegime, type Regime } from './regime';
import type { AppliedTaxRules, TaxRules } from './tax-rules';

export interface CalculationLine {
  itemKey: string;
  /** The manifest line: its FOB, weights and units. */
  data: Pick<ManifestItem, 'fobValueUsd' | 'totalWeightKg' | 'totalVolumetricWeightKg' | 'amountOfItems'>;
  /** The line's regime as classified; the shipment takes the regime of its lines (`shipmentRegime`). */
  regime: Regime | undefined;
  /** The consignee's tax id is valid (and so, for a personal shipment, the franchise applies). */
  taxIdValid: boolean;
  /** The duty of the line's NCM code, percent. */
  dutyRate: number | undefined;
  /** The VAT of the line's NCM code, percent (`vatAt`); absent, the rules' general rate. */
  vatRate?: number;
}

/** Amounts a caller knows for the whole shipment, in USD, that replace the rules' defaults. */
export interface DeclaredCosts {
  freight_usd?: number | null;
  insurance_usd?: number | null;
}

/**
 * The shipment's regime is the strictest reading of its lines (P if any line is P, else C, else X;
 * a line without a regime counts as C); the franchise applies to a personal shipment whose first
 * line's consignee has a valid tax id (web services reserved the quota for it, or turned it C).
 */
export function calculateLines(awb: string, lines: readonly CalculationLine[], rules: TaxRules | AppliedTaxRules, declared: DeclaredCosts = {}): ShipmentCalculation {
  const regime = shipmentRegime(lines.map((l) => ({ regime: l.regime ?? 'C' })));
  return calculateShipment(
    {
      awb,
      regime,
      personalFranchise: regime === 'P' && lines[0]?.taxIdValid === true,
      products: lines.map((l) => ({
        itemKey: l.itemKey,
        fob_usd: l.data.fobValueUsd ?? 0,
        net_kg: l.data.totalWeightKg ?? null,
        volumetric_kg: l.data.totalVolumetricWeightKg ?? null,
        quantity: l.data.amountOfItems ?? null,
        duty_rate: l.dutyRate ?? 0,
        vat_rate: l.vatRate,
      })),
      freight_usd: declared.freight_usd,
      insurance_usd: declared.insurance_usd,
    },
    rules,
  );
}

/** A product's calculated figures as a processed result carries them (the pipeline's calculations and the broker's correction). */
export function calculatedFields(b: Breakdown) {
  return {
    cif_value: b.cif_value,
    customs_duty: b.customs_duty,
    statistics_fee: b.statistics_fee,
    vat: b.vat,
    ddp_value: b.ddp_value,
    amount_to_pay: b.amount_to_pay,
    currency: b.currency,
    breakdown: b as unknown as Record<string, unknown>,
  };
}
