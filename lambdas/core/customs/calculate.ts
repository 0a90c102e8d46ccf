/**
 * Duties and taxes of one shipment (one AWB) and the totals of a manifest: the pipeline's
 * calculations stage (spec 3.3), from the domain facts of domain/customs-ar.md. Pure: no clock, no
 * randomness, no I/O; the same input and rules give the same output, to the cent.
 *
 * All arithmetic is in integer cents (money.ts). The steps, each rounded half up to the cent once:
 *
 *   freight (shipment) = USD per kg x chargeable kg           split to products by weight or FOB
 *                        (or the amount a quote declares)
 *   insurance (shipment) = insurance % x FOB                   split to products by FOB
 *                          (or the amount a quote declares)
 *   CIF = FOB + freight + insurance                            (per product, exact sum)
 *   franchise (shipment, P within the quota) = min(USD 400, FOB)   split to products by FOB
 *   duty base = CIF                                            C, or P outside the quota
 *             = 0                                              P within the quota, FOB <= franchise
 *             = CIF x (FOB - franchise share) / FOB            P within the quota, FOB > franchise
 *   duty = duty base x NCM rate %;  statistics fee = duty base x fee %
 *   VAT base = CIF + duty + statistics fee;  VAT = VAT base x the NCM's VAT % (21, 10.5 or 0;
 *                                            the rules' general rate without one)
 *   DDP = CIF + duty + statistics fee + VAT;  amount to pay = duty + statistics fee + VAT
 *
 * Shipment totals are the sums of the products' values, so products always add up to the totals.
 */
import {
  allocate,
  decAdd,
  decCompare,
  decMax,
  decTimesToCents,
  decUnitsAtCommonScale,
  decZero,
  formatCents,
  formatDec,
  minCents,
  mulDiv,
  parseDec,
  percentOf,
  sumCents,
  toCents,
  toCentsExact,
  toNumber,
  type Cents,
  type Dec,
} from './money';
import type { AppliedTaxRules, TaxRules } from './tax-rules';

/** `P` personal, `C` commercial, `X` prohibited (never cleared). */
export type Regime = 'P' | 'C' | 'X';

export type ProductInput = {
  /** The product's key in the manifest (unique within the shipment). */
  itemKey: string;
  /** FOB value of the line in USD (`fobValueUsd`). */
  fob_usd: number;
  /** Net weight of the line, kg (`totalWeightKg`). */
  net_kg?: number | null;
  /** Volumetric weight of the line, kg (`totalVolumetricWeightKg`). */
  volumetric_kg?: number | null;
  /** Units in the line (`amountOfItems`); shown in the explanation only. */
  quantity?: number | null;
  /** Import duty of the product's NCM code, percent (from the tariff table). */
  duty_rate: number;
  /** VAT of the product's NCM code, percent (`vatAt`, tariff-rates.ts); absent, the rules' general rate. */
  vat_rate?: number | null;
};

export type ShipmentInput = {
  awb: string;
  regime: Regime;
  /** True when the shipment is personal and the consignee still has yearly quota: the franchise applies. */
  personalFranchise: boolean;
  products: readonly ProductInput[];
  /**
   * The shipment's freight in USD when the caller knows it (a landed-cost quote): it replaces the
   * rules' USD per chargeable kg. Absent (the pipeline: a manifest carries no freight), the rate applies.
   */
  freight_usd?: number | null;
  /** The shipment's insurance in USD when the caller knows it: it replaces the rules' percent of FOB. */
  insurance_usd?: number | null;
};

/** One product's numbers. Every amount is a JSON number with 2 decimals, in `currency`. */
export type Breakdown = {
  fob_value: number;
  freight: number;
  insurance: number;
  cif_value: number;
  franchise_usd_applied: number;
  duty_base: number;
  duty_rate: number;
  customs_duty: number;
  statistics_fee_rate: number;
  statistics_fee: number;
  vat_base: number;
  vat_rate: number;
  vat: number;
  ddp_value: number;
  amount_to_pay: number;
  currency: 'USD';
  /** One line per step, enough to redo the numbers with a calculator. */
  explanation: string[];
};

export type ShipmentTotals = {
  fob: number;
  freight: number;
  insurance: number;
  cif: number;
  franchise_usd_applied: number;
  customs_duty: number;
  statistics_fee: number;
  vat: number;
  ddp: number;
  amount_to_pay: number;
};

/** How the shipment's freight was split: by chargeable weight, by FOB, or not at all (prohibited). */
export type FreightAllocation = 'weight' | 'fob' | 'none';

export type ShipmentCalculation = {
  awb: string;
  regime: Regime;
  currency: 'USD';
  /** Number of products (item lines) of the shipment. */
  item_count: number;
  /** The kg the freight was charged for (0 for a prohibited shipment). */
  chargeable_kg: number;
  freight_allocation: FreightAllocation;
  rules: { effective_from: string; source: string; overridden: readonly string[] };
  /** Per product, in input order. */
  products: Map<string, Breakdown>;
  /** Sums of the products' values: they add up exactly. */
  totals: ShipmentTotals;
};

type Line = {
  key: string;
  fob: Cents;
  chargeable: Dec | null;
  quantity: number | null;
  dutyRate: Dec;
  dutyRateNumber: number;
  vatRate: Dec | null;
};

const pct = (d: Dec) => `${formatDec(d)}%`;
const usd = (c: Cents) => formatCents(c);
const kg = (d: Dec) => `${formatDec(d)} kg`;
/** A USD rate with at least 2 decimals: 5 -> '5.00', 4.125 -> '4.125'. */
const usdRate = (d: Dec) => (d.scale >= 2 ? formatDec(d) : formatCents(d.units * 10n ** BigInt(2 - d.scale)));

function optionalKg(value: number | null | undefined, field: string, key: string): Dec | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`product ${key}: ${field} must be a number >= 0`);
  }
  return parseDec(value);
}

/** A declared shipment amount (freight, insurance) in cents, or null when none was declared. */
function declaredCents(value: number | null | undefined, field: string, awb: string): Cents | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new RangeError(`shipment ${awb}: ${field} must be a number >= 0`);
  return toCents(value);
}

function readLine(p: ProductInput): Line {
  const key = p.itemKey;
  if (typeof key !== 'string' || key === '') throw new RangeError('every product needs an itemKey');
  if (typeof p.fob_usd !== 'number' || !Number.isFinite(p.fob_usd) || p.fob_usd < 0) {
    throw new RangeError(`product ${key}: fob_usd must be a number >= 0`);
  }
  if (typeof p.duty_rate !== 'number' || !Number.isFinite(p.duty_rate) || p.duty_rate < 0 || p.duty_rate > 100) {
    throw new RangeError(`product ${key}: duty_rate must be a percent between 0 and 100`);
  }
  const vatRate = p.vat_rate === null || p.vat_rate === undefined ? null : p.vat_rate;
  if (vatRate !== null && (typeof vatRate !== 'number' || !Number.isFinite(vatRate) || vatRate < 0 || vatRate > 100)) {
    throw new RangeError(`product ${key}: vat_rate must be a percent between 0 and 100`);
  }
  const net = optionalKg(p.net_kg, 'net_kg', key);
  const vol = optionalKg(p.volumetric_kg, 'volumetric_kg', key);
  const chargeable = net && vol ? decMax(net, vol) : (net ?? vol);
  const quantity = typeof p.quantity === 'number' && Number.isFinite(p.quantity) ? p.quantity : null;
  return { key, fob: toCents(p.fob_usd), chargeable, quantity, dutyRate: parseDec(p.duty_rate), dutyRateNumber: Number(formatDec(parseDec(p.duty_rate))), vatRate: vatRate === null ? null : parseDec(vatRate) };
}

const zeroTotals = (): ShipmentTotals => ({
  fob: 0,
  freight: 0,
  insurance: 0,
  cif: 0,
  franchise_usd_applied: 0,
  customs_duty: 0,
  statistics_fee: 0,
  vat: 0,
  ddp: 0,
  amount_to_pay: 0,
});

function rulesNote(rules: TaxRules | AppliedTaxRules): string {
  const overridden = 'overridden' in rules ? rules.overridden : [];
  const settings = overridden.length ? `; settings: ${overridden.map((k) => `${k} ${rules[k] ?? 0}`).join(', ')}` : '';
  return `rules in force from ${rules.effective_from} (${rules.source})${settings}`;
}

function prohibited(input: ShipmentInput, lines: Line[], rules: TaxRules | AppliedTaxRules): ShipmentCalculation {
  const products = new Map<string, Breakdown>();
  for (const line of lines) {
    products.set(line.key, {
      fob_value: 0,
      freight: 0,
      insurance: 0,
      cif_value: 0,
      franchise_usd_applied: 0,
      duty_base: 0,
      duty_rate: 0,
      customs_duty: 0,
      statistics_fee_rate: 0,
      statistics_fee: 0,
      vat_base: 0,
      vat_rate: 0,
      vat: 0,
      ddp_value: 0,
      amount_to_pay: 0,
      currency: rules.currency,
      explanation: [
        'prohibited: not cleared',
        `declared FOB ${usd(line.fob)} not valued: no freight, insurance, duty, statistics fee or VAT is computed`,
      ],
    });
  }
  return {
    awb: input.awb,
    regime: 'X',
    currency: rules.currency,
    item_count: lines.length,
    chargeable_kg: 0,
    freight_allocation: 'none',
    rules: { effective_from: rules.effective_from, source: rules.source, overridden: 'overridden' in rules ? rules.overridden : [] },
    products,
    totals: zeroTotals(),
  };
}

/**
 * The duties and taxes of one shipment, per product and in total, under `rules` (from `taxRulesAt`).
 * Throws a RangeError for a shipment without products, a repeated itemKey, or a product whose FOB,
 * weights or duty rate are not numbers >= 0 (a duty rate above 100%).
 */
export function calculateShipment(input: ShipmentInput, rules: TaxRules | AppliedTaxRules): ShipmentCalculation {
  if (!['P', 'C', 'X'].includes(input.regime)) throw new RangeError(`unknown regime ${JSON.stringify(input.regime)}`);
  if (input.products.length === 0) throw new RangeError(`shipment ${input.awb}: no products`);
  const lines = input.products.map(readLine);
  const keys = new Set<string>();
  for (const l of lines) {
    if (keys.has(l.key)) throw new RangeError(`shipment ${input.awb}: product ${l.key} appears twice`);
    keys.add(l.key);
  }
  const declaredFreight = declaredCents(input.freight_usd, 'freight_usd', input.awb);
  const declaredInsurance = declaredCents(input.insurance_usd, 'insurance_usd', input.awb);
  if (input.regime === 'X') return prohibited(input, lines, rules);

  const feeRate = parseDec(rules.statistics_fee_rate);
  const vatRate = parseDec(rules.vat_rate);
  const vatOverridden = 'overridden' in rules && rules.overridden.includes('vat_rate');
  const insuranceRate = parseDec(rules.insurance_rate);
  const freightRate = parseDec(rules.freight_usd_per_kg);
  const minKg = parseDec(rules.min_chargeable_kg ?? 0);
  const franchiseCents = toCentsExact(rules.personal_franchise_usd);

  const fobs = lines.map((l) => l.fob);
  const fobTotal = sumCents(fobs);

  // Freight: one amount for the shipment, from its chargeable weight, then split.
  const declaredKg = lines.reduce<Dec>((s, l) => (l.chargeable ? decAdd(s, l.chargeable) : s), decZero);
  const chargeableKg = decMax(declaredKg, minKg);
  const freightTotal = declaredFreight ?? decTimesToCents(freightRate, chargeableKg);
  const byWeight = lines.every((l) => l.chargeable && l.chargeable.units > 0n);
  const freights = allocate(freightTotal, byWeight ? decUnitsAtCommonScale(lines.map((l) => l.chargeable as Dec)) : fobs);
  const freightHow: FreightAllocation = byWeight ? 'weight' : 'fob';
  const minApplied = decCompare(declaredKg, minKg) < 0;

  // Insurance: a share of the shipment's FOB, split by FOB.
  const insuranceTotal = declaredInsurance ?? percentOf(fobTotal, insuranceRate);
  const insurances = allocate(insuranceTotal, fobs);

  // Franchise: the first USD 400 FOB of a personal shipment within the quota, split by FOB.
  const franchiseApplies = input.regime === 'P' && input.personalFranchise;
  const franchiseTotal = franchiseApplies ? minCents(franchiseCents, fobTotal) : 0n;
  const franchises = allocate(franchiseTotal, fobs);
  const withinFranchise = franchiseApplies && fobTotal <= franchiseCents;

  const products = new Map<string, Breakdown>();
  const sums = { fob: 0n, freight: 0n, insurance: 0n, cif: 0n, franchise: 0n, duty: 0n, fee: 0n, vat: 0n, ddp: 0n, pay: 0n };
  const freightLine =
    (declaredFreight !== null
      ? `shipment freight ${usd(freightTotal)} as declared (${kg(chargeableKg)} chargeable)`
      : `shipment freight ${usd(freightTotal)} = ${kg(chargeableKg)} chargeable x USD ${usdRate(freightRate)}/kg` +
        (minApplied ? ` (declared ${kg(declaredKg)}, minimum ${kg(minKg)} applies)` : '')) +
    (byWeight ? ', split by chargeable weight' : ', split by FOB (not every product declares a weight)');
  const insuranceLine =
    declaredInsurance !== null
      ? `shipment insurance ${usd(insuranceTotal)} as declared, split by FOB`
      : `${pct(insuranceRate)} of shipment FOB ${usd(fobTotal)} = ${usd(insuranceTotal)}, split by FOB`;

  lines.forEach((line, i) => {
    const fob = line.fob;
    const freight = freights[i];
    const insurance = insurances[i];
    const cif = fob + freight + insurance;
    const franchise = franchises[i];
    const explanation: string[] = [];
    explanation.push(`FOB ${usd(fob)}` + (line.quantity !== null ? ` for ${line.quantity} unit(s)` : ''));
    explanation.push(
      `freight ${usd(freight)}: ${freightLine}` + (byWeight ? ` (this product ${kg(line.chargeable as Dec)})` : ''),
    );
    explanation.push(`insurance ${usd(insurance)}: ${insuranceLine}`);
    explanation.push(`CIF ${usd(cif)} = FOB ${usd(fob)} + freight ${usd(freight)} + insurance ${usd(insurance)}`);

    let dutyBase: Cents;
    if (!franchiseApplies) {
      dutyBase = cif;
      explanation.push(
        input.regime === 'C'
          ? `commercial shipment: duty base = CIF ${usd(cif)}`
          : `personal shipment outside the yearly franchise quota: duty base = CIF ${usd(cif)}`,
      );
    } else if (withinFranchise) {
      dutyBase = 0n;
      explanation.push(
        `franchise USD ${formatCents(franchiseCents)} of the shipment applied: ${usd(franchise)} of this product; ` +
          `shipment FOB ${usd(fobTotal)} is within it, so duty base = 0.00 (no duty, no statistics fee)`,
      );
    } else {
      const excess = fobTotal - franchiseTotal;
      // The franchise covers its share of the FOB and the freight and insurance that go with it.
      dutyBase = fob > 0n ? mulDiv(cif, fob - franchise, fob) : mulDiv(cif, excess, fobTotal);
      explanation.push(
        `franchise USD ${formatCents(franchiseCents)} of the shipment applied: ${usd(franchise)} of this product ` +
          `(shipment FOB ${usd(fobTotal)} exceeds it by ${usd(excess)}, split by FOB)`,
      );
      explanation.push(
        fob > 0n
          ? `duty base ${usd(dutyBase)} = CIF ${usd(cif)} x (FOB ${usd(fob)} - franchise share ${usd(franchise)}) / FOB ${usd(fob)}`
          : `duty base ${usd(dutyBase)} = CIF ${usd(cif)} x shipment FOB above the franchise ${usd(excess)} / shipment FOB ${usd(fobTotal)}`,
      );
    }

    const duty = percentOf(dutyBase, line.dutyRate);
    const fee = percentOf(dutyBase, feeRate);
    const vatBase = cif + duty + fee;
    // The NCM's VAT, unless a setting replaced the VAT rate for the whole calculation.
    const ncmVat = vatOverridden ? null : line.vatRate;
    const productVat = ncmVat ?? vatRate;
    const vatNote = !ncmVat || decCompare(ncmVat, vatRate) === 0 ? '' : ncmVat.units === 0n ? ' (VAT-exempt NCM)' : ' (NCM rate)';
    const vat = percentOf(vatBase, productVat);
    const ddp = vatBase + vat;
    const pay = duty + fee + vat;
    explanation.push(`duty ${usd(duty)} = ${pct(line.dutyRate)} (NCM rate) of ${usd(dutyBase)}`);
    explanation.push(`statistics fee ${usd(fee)} = ${pct(feeRate)} of ${usd(dutyBase)}`);
    explanation.push(
      `VAT ${usd(vat)} = ${pct(productVat)}${vatNote} of VAT base ${usd(vatBase)} (CIF ${usd(cif)} + duty ${usd(duty)} + statistics fee ${usd(fee)})`,
    );
    explanation.push(`DDP ${usd(ddp)} = CIF ${usd(cif)} + duty ${usd(duty)} + statistics fee ${usd(fee)} + VAT ${usd(vat)}`);
    explanation.push(`amount to pay ${usd(pay)} = duty ${usd(duty)} + statistics fee ${usd(fee)} + VAT ${usd(vat)} (${rules.currency})`);
    explanation.push(rulesNote(rules));

    products.set(line.key, {
      fob_value: toNumber(fob),
      freight: toNumber(freight),
      insurance: toNumber(insurance),
      cif_value: toNumber(cif),
      franchise_usd_applied: toNumber(franchise),
      duty_base: toNumber(dutyBase),
      duty_rate: line.dutyRateNumber,
      customs_duty: toNumber(duty),
      statistics_fee_rate: rules.statistics_fee_rate,
      statistics_fee: toNumber(fee),
      vat_base: toNumber(vatBase),
      vat_rate: Number(formatDec(productVat)),
      vat: toNumber(vat),
      ddp_value: toNumber(ddp),
      amount_to_pay: toNumber(pay),
      currency: rules.currency,
      explanation,
    });
    sums.fob += fob;
    sums.freight += freight;
    sums.insurance += insurance;
    sums.cif += cif;
    sums.franchise += franchise;
    sums.duty += duty;
    sums.fee += fee;
    sums.vat += vat;
    sums.ddp += ddp;
    sums.pay += pay;
  });

  return {
    awb: input.awb,
    regime: input.regime,
    currency: rules.currency,
    item_count: lines.length,
    chargeable_kg: Number(formatDec(chargeableKg)),
    freight_allocation: freightHow,
    rules: { effective_from: rules.effective_from, source: rules.source, overridden: 'overridden' in rules ? rules.overridden : [] },
    products,
    totals: {
      fob: toNumber(sums.fob),
      freight: toNumber(sums.freight),
      insurance: toNumber(sums.insurance),
      cif: toNumber(sums.cif),
      franchise_usd_applied: toNumber(sums.franchise),
      customs_duty: toNumber(sums.duty),
      statistics_fee: toNumber(sums.fee),
      vat: toNumber(sums.vat),
      ddp: toNumber(sums.ddp),
      amount_to_pay: toNumber(sums.pay),
    },
  };
}
