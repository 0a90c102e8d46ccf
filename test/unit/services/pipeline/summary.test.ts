import { describe, expect, it } from 'vitest';
import { calculateShipment, type ShipmentCalculation } from '#core/customs/calculate';
import type { Regime } from '#core/customs/regime';
import { taxRulesAt } from '#core/customs/tax-rules';
import { processedProductView } from '#core/manifests/views';
import { SummaryTally } from '#services/pipeline/summary';

const processed = (awb: string, itemKey: string, regime: Regime, amount_to_pay: number) =>
  processedProductView({ awb, itemKey, item: { trackingNumber: null, description: null, consignee: 'C', taxId: null, fob: null } }, { regime, amount_to_pay });

const tally = (products: ReturnType<typeof processed>[]) => {
  const t = new SummaryTally();
  for (const p of products) t.add(p);
  return t.summary();
};

describe('the manifest summary', () => {
  it('sums amounts to pay exactly and counts items per regime', () => {
    expect(
      tally([
        processed('A1', 'a1', 'P', 0.1),
        processed('A1', 'a2', 'P', 0),
        processed('A2', 'b1', 'C', 0.2),
        ...['x1', 'x2', 'x3'].map((k) => processed('A3', k, 'X', 0)),
      ]),
    ).toEqual({ total_awbs: 3, total_products: 6, amount_to_pay: 0.3, currency: 'USD', personal_items: 2, commercial_items: 1, prohibited_items: 3, review_pending: 6, review_at_stake: 0.3, risk_flags: { products: 0, total: 0, by_rule: {} } });
  });

  it('takes calculated products as they are', () => {
    const rules = taxRulesAt('2025-06-01');
    const a = calculateShipment({ awb: 'A', regime: 'P', personalFranchise: true, products: [{ itemKey: 'a', fob_usd: 120, net_kg: 0.8, duty_rate: 20 }] }, rules);
    const b = calculateShipment(
      { awb: 'B', regime: 'C', personalFranchise: false, products: [{ itemKey: 'a', fob_usd: 100, net_kg: 2, volumetric_kg: 3, duty_rate: 35 }] },
      rules,
    );
    const of = (awb: string, r: ShipmentCalculation) => processed(awb, `${awb}-a`, r.regime, r.products.get('a')!.amount_to_pay);
    expect(tally([of('A', a), of('B', b)]).amount_to_pay).toBe(103.99); // 26.29 + 77.70
  });

  it('is zero for an empty manifest', () => {
    expect(tally([])).toEqual({ total_awbs: 0, total_products: 0, amount_to_pay: 0, currency: 'USD', personal_items: 0, commercial_items: 0, prohibited_items: 0, review_pending: 0, review_at_stake: 0, risk_flags: { products: 0, total: 0, by_rule: {} } });
  });

  it('counts the products awaiting review and what they pay: not a confident green one, not one a broker decided', () => {
    const confident = { ...processed('A1', 'a1', 'P', 5), classification_confidence: 0.99, customs_channel: 'V' as const };
    const decided = { ...processed('A2', 'b1', 'P', 7), review: { revision: 1, ncm_code_before: null, ncm_code: '95030099', reason: 'x', decided_by: 'b', decided_at: '2026-12-06T00:00:00Z' } };
    const doubtful = { ...processed('A3', 'c1', 'P', 11), classification_confidence: 0.3, customs_channel: 'V' as const };
    const red = { ...processed('A4', 'd1', 'C', 13), classification_confidence: 0.99, customs_channel: 'RO' as const };
    expect(tally([confident, decided, doubtful, red])).toMatchObject({ review_pending: 2, review_at_stake: 24 });
  });

  it('counts the products the risk rules flagged, the flags and the flags by rule; and a product with a flag awaits review', () => {
    const flag = (code: 'split_over_franchise' | 'under_valuation') => ({ code, reason: 'r', reason_en: 'r', norm: 'n' });
    const confident = { ...processed('A1', 'a1', 'P', 5), classification_confidence: 0.99, customs_channel: 'V' as const };
    const split = { ...confident, item_key: 'a2', risk_flags: [flag('split_over_franchise'), flag('under_valuation')] };
    const cheap = { ...confident, item_key: 'a3', risk_flags: [flag('under_valuation')] };
    expect(tally([confident, split, cheap])).toMatchObject({ review_pending: 2, risk_flags: { products: 2, total: 3, by_rule: { split_over_franchise: 1, under_valuation: 2 } } });
  });

  it('leaves the risk flags out when the rules are off', () => {
    const t = new SummaryTally(false);
    expect(t.summary()).not.toHaveProperty('risk_flags');
  });
});
