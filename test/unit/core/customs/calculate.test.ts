import { describe, expect, it } from 'vitest';
import {
  calculateShipment,
  type ProductInput,
  type ShipmentCalculation,
  type ShipmentInput,
} from '#core/customs/calculate';
import { toCentsExact } from '#core/customs/money';
import { argentineDate, taxRulesAt, taxRulesTable, type TaxRules } from '#core/customs/tax-rules';
import { checkCitedTable } from '#core/customs/norms';
import { prng } from '#twin/prng';

/** The built-in rules: freight USD 5.00 per kg, insurance 1% of FOB, at least 0.5 kg, fee 3%, VAT 21%. */
const rules = taxRulesAt('2025-06-01');

const shipment = (regime: ShipmentInput['regime'], products: ProductInput[], personalFranchise = regime === 'P'): ShipmentInput => ({
  awb: 'HAWB-1',
  regime,
  personalFranchise,
  products,
});

const product = (r: ShipmentCalculation, key: string) => {
  const p = r.products.get(key);
  if (!p) throw new Error(`no product ${key}`);
  return p;
};

const plain = (r: ShipmentCalculation) => ({ ...r, products: Object.fromEntries(r.products) });


describe('a personal shipment within the franchise', () => {
  // FOB 120.00, 0.8 kg, NCM duty 20%:
  //   freight 0.8 kg x 5.00 = 4.00; insurance 1% x 120.00 = 1.20; CIF = 125.20
  //   FOB 120.00 <= 400: duty base 0, duty 0, statistics fee 0
  //   VAT 21% x 125.20 = 26.292 -> 26.29; DDP 125.20 + 26.29 = 151.49; to pay 26.29
  const r = calculateShipment(shipment('P', [{ itemKey: 'a', fob_usd: 120, net_kg: 0.8, duty_rate: 20 }]), rules);

  it('pays no duty and no statistics fee, only VAT on the CIF', () => {
    expect(product(r, 'a')).toMatchObject({
      fob_value: 120,
      freight: 4,
      insurance: 1.2,
      cif_value: 125.2,
      franchise_usd_applied: 120,
      duty_base: 0,
      duty_rate: 20,
      customs_duty: 0,
      statistics_fee: 0,
      vat_base: 125.2,
      vat_rate: 21,
      vat: 26.29,
      ddp_value: 151.49,
      amount_to_pay: 26.29,
      currency: 'USD',
    });
  });

  it('explains the franchise in the breakdown', () => {
    const lines = product(r, 'a').explanation;
    expect(lines).toContain('CIF 125.20 = FOB 120.00 + freight 4.00 + insurance 1.20');
    expect(lines.some((l) => l.startsWith('franchise USD 400.00 of the shipment applied: 120.00 of this product'))).toBe(true);
    expect(lines).toContain('VAT 26.29 = 21% of VAT base 125.20 (CIF 125.20 + duty 0.00 + statistics fee 0.00)');
  });
});

describe('a personal shipment straddling the franchise (FOB 600 in two products)', () => {
  // a: FOB 400.00, 1.2 kg, duty 20%; b: FOB 200.00, 0.8 kg, duty 16%.
  //   freight 2.0 kg x 5.00 = 10.00, by weight: a 6.00, b 4.00
  //   insurance 1% x 600.00 = 6.00, by FOB: a 4.00, b 2.00
  //   CIF: a 410.00, b 206.00
  //   franchise min(400, 600) = 400.00, by FOB: a 266.67 (266.666..), b 133.33
  //   duty base a = 410.00 x (400.00 - 266.67) / 400.00 = 136.663.. -> 136.66
  //   duty base b = 206.00 x (200.00 - 133.33) / 200.00 = 68.670.. -> 68.67
  //   a: duty 20% 27.332 -> 27.33; fee 3% 4.0998 -> 4.10; VAT base 441.43; VAT 92.7003 -> 92.70
  //   b: duty 16% 10.9872 -> 10.99; fee 3% 2.0601 -> 2.06; VAT base 219.05; VAT 46.0005 -> 46.00
  const r = calculateShipment(
    shipment('P', [
      { itemKey: 'a', fob_usd: 400, net_kg: 1.2, duty_rate: 20 },
      { itemKey: 'b', fob_usd: 200, net_kg: 0.8, duty_rate: 16 },
    ]),
    rules,
  );

  it('exempts the first USD 400 FOB and taxes the CIF of the value above it', () => {
    expect(product(r, 'a')).toMatchObject({
      freight: 6,
      insurance: 4,
      cif_value: 410,
      franchise_usd_applied: 266.67,
      duty_base: 136.66,
      customs_duty: 27.33,
      statistics_fee: 4.1,
      vat_base: 441.43,
      vat: 92.7,
      ddp_value: 534.13,
      amount_to_pay: 124.13,
    });
    expect(product(r, 'b')).toMatchObject({
      freight: 4,
      insurance: 2,
      cif_value: 206,
      franchise_usd_applied: 133.33,
      duty_base: 68.67,
      customs_duty: 10.99,
      statistics_fee: 2.06,
      vat_base: 219.05,
      vat: 46,
      ddp_value: 265.05,
      amount_to_pay: 59.05,
    });
  });

  it('totals the shipment as the sum of its products', () => {
    expect(r.totals).toEqual({
      fob: 600,
      freight: 10,
      insurance: 6,
      cif: 616,
      franchise_usd_applied: 400,
      customs_duty: 38.32,
      statistics_fee: 6.16,
      vat: 138.7,
      ddp: 799.18,
      amount_to_pay: 183.18,
    });
  });

  it('explains the duty base from the product franchise share', () => {
    expect(product(r, 'a').explanation).toContain('duty base 136.66 = CIF 410.00 x (FOB 400.00 - franchise share 266.67) / FOB 400.00');
  });
});

describe('a commercial shipment', () => {
  // FOB 100.00, net 2 kg, volumetric 3 kg (chargeable 3), duty 35%:
  //   freight 3 x 5.00 = 15.00; insurance 1.00; CIF 116.00
  //   duty 35% 40.60; fee 3% 3.48; VAT base 160.08; VAT 21% 33.6168 -> 33.62
  //   DDP 193.70; to pay 77.70
  const input: ProductInput[] = [{ itemKey: 'a', fob_usd: 100, net_kg: 2, volumetric_kg: 3, duty_rate: 35 }];
  const expected = {
    freight: 15,
    insurance: 1,
    cif_value: 116,
    franchise_usd_applied: 0,
    duty_base: 116,
    customs_duty: 40.6,
    statistics_fee: 3.48,
    vat_base: 160.08,
    vat: 33.62,
    ddp_value: 193.7,
    amount_to_pay: 77.7,
  };

  it('pays duty and statistics fee on the full CIF and VAT on CIF + duty + fee', () => {
    const r = calculateShipment(shipment('C', input), rules);
    expect(product(r, 'a')).toMatchObject(expected);
    expect(r.chargeable_kg).toBe(3);
  });

  it('gets no franchise even when the flag is set', () => {
    expect(product(calculateShipment(shipment('C', input, true), rules), 'a')).toMatchObject(expected);
  });

  it('is taxed the same as a personal shipment whose yearly quota is used up', () => {
    const r = calculateShipment(shipment('P', input, false), rules);
    expect(product(r, 'a')).toMatchObject(expected);
    expect(product(r, 'a').explanation).toContain('personal shipment outside the yearly franchise quota: duty base = CIF 116.00');
  });
});

describe('a prohibited shipment', () => {
  const r = calculateShipment(shipment('X', [{ itemKey: 'a', fob_usd: 80, net_kg: 1, duty_rate: 20 }]), rules);

  it('is not calculated: every amount is 0', () => {
    const p = product(r, 'a');
    for (const key of ['fob_value', 'freight', 'insurance', 'cif_value', 'customs_duty', 'statistics_fee', 'vat', 'ddp_value', 'amount_to_pay'] as const) {
      expect(p[key]).toBe(0);
    }
    expect(r.totals.amount_to_pay).toBe(0);
    expect(r.freight_allocation).toBe('none');
  });

  it('says why in the explanation', () => {
    expect(product(r, 'a').explanation[0]).toBe('prohibited: not cleared');
  });
});

describe('freight and insurance', () => {
  it('defaults to USD 5.00 per kg, 1% of FOB and at least 0.5 kg', () => {
    const current = taxRulesTable[taxRulesTable.length - 1];
    expect(current).toMatchObject({ freight_usd_per_kg: 5, insurance_rate: 1, min_chargeable_kg: 0.5 });
  });

  it('charges the minimum weight and splits freight by FOB when no weight is declared', () => {
    // 0.5 kg x 5.00 = 2.50, by FOB 30:10 -> 1.875 and 0.625: equal remainders, the earlier part gets the cent
    const r = calculateShipment(
      shipment('C', [
        { itemKey: 'a', fob_usd: 30, duty_rate: 0 },
        { itemKey: 'b', fob_usd: 10, duty_rate: 0 },
      ]),
      rules,
    );
    expect(r.freight_allocation).toBe('fob');
    expect(r.chargeable_kg).toBe(0.5);
    expect([product(r, 'a').freight, product(r, 'b').freight]).toEqual([1.88, 0.62]);
    expect([product(r, 'a').insurance, product(r, 'b').insurance]).toEqual([0.3, 0.1]);
  });

  it('charges the minimum weight when the declared weight is below it', () => {
    const r = calculateShipment(shipment('C', [{ itemKey: 'a', fob_usd: 10, net_kg: 0.2, duty_rate: 0 }]), rules);
    expect(product(r, 'a').freight).toBe(2.5);
    expect(product(r, 'a').explanation[1]).toContain('declared 0.2 kg, minimum 0.5 kg applies');
  });

  it('uses the larger of net and volumetric weight', () => {
    const r = calculateShipment(shipment('C', [{ itemKey: 'a', fob_usd: 10, net_kg: 1.5, volumetric_kg: 0.9, duty_rate: 0 }]), rules);
    expect(product(r, 'a').freight).toBe(7.5);
  });

  it('follows the partner settings and explains CIF from them', () => {
    const custom = taxRulesAt('2025-06-01', { freight_usd_per_kg: 4.6 });
    expect(custom.overridden).toEqual(['freight_usd_per_kg']);
    const r = calculateShipment(shipment('C', [{ itemKey: 'a', fob_usd: 40, net_kg: 1, duty_rate: 0 }]), custom);
    expect(product(r, 'a').explanation).toContain('CIF 45.00 = FOB 40.00 + freight 4.60 + insurance 0.40');
  });

  it('takes a declared freight and insurance of the shipment in place of the rate and the percent, split the same way', () => {
    const r = calculateShipment(
      {
        ...shipment('C', [
          { itemKey: 'a', fob_usd: 30, net_kg: 1, duty_rate: 0 },
          { itemKey: 'b', fob_usd: 10, net_kg: 3, duty_rate: 0 },
        ]),
        freight_usd: 12.345,
        insurance_usd: 1,
      },
      rules,
    );
    // freight 12.35 (rounded on entry) by weight 1:3 -> 3.09 / 9.26; insurance 1.00 by FOB 3:1 -> 0.75 / 0.25
    expect([product(r, 'a').freight, product(r, 'b').freight]).toEqual([3.09, 9.26]);
    expect([product(r, 'a').insurance, product(r, 'b').insurance]).toEqual([0.75, 0.25]);
    expect(r.totals).toMatchObject({ freight: 12.35, insurance: 1, cif: 53.35 });
    expect(product(r, 'a').explanation).toContain('freight 3.09: shipment freight 12.35 as declared (4 kg chargeable), split by chargeable weight (this product 1 kg)');
    expect(product(r, 'a').explanation).toContain('insurance 0.75: shipment insurance 1.00 as declared, split by FOB');
    expect(() => calculateShipment({ ...shipment('C', [{ itemKey: 'a', fob_usd: 1, duty_rate: 0 }]), freight_usd: -1 }, rules)).toThrow(/freight_usd/);
  });
});

describe('the franchise split', () => {
  it('splits USD 400 across equal products with exact remainders', () => {
    const r = calculateShipment(
      shipment('P', ['a', 'b', 'c'].map((k) => ({ itemKey: k, fob_usd: 200, net_kg: 1, duty_rate: 10 }))),
      rules,
    );
    expect([...r.products.values()].map((p) => p.franchise_usd_applied)).toEqual([133.34, 133.33, 133.33]);
    expect(r.totals.franchise_usd_applied).toBe(400);
  });
});

describe('allocation adds up exactly', () => {
  const fields = [
    ['fob_value', 'fob'],
    ['freight', 'freight'],
    ['insurance', 'insurance'],
    ['cif_value', 'cif'],
    ['franchise_usd_applied', 'franchise_usd_applied'],
    ['customs_duty', 'customs_duty'],
    ['statistics_fee', 'statistics_fee'],
    ['vat', 'vat'],
    ['ddp_value', 'ddp'],
    ['amount_to_pay', 'amount_to_pay'],
  ] as const;
  const cents = (n: number) => toCentsExact(n);

  it('makes products add up to the shipment totals over random shipments', () => {
    const rand = prng(424242);
    const money = () => Math.round(rand() * (rand() < 0.5 ? 50_000 : 300_000)) / 100; // 0.00 to 3000.00
    const weight = () => (rand() < 0.15 ? undefined : Math.round(rand() * 20_000) / 1000); // grams
    for (let run = 0; run < 500; run++) {
      const regime = (['P', 'P', 'C', 'X'] as const)[Math.floor(rand() * 4)];
      const products = Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, i) => ({
        itemKey: `k${i}`,
        fob_usd: money(),
        net_kg: weight(),
        volumetric_kg: weight(),
        duty_rate: [0, 2, 10.5, 16, 20, 35][Math.floor(rand() * 6)],
      }));
      const r = calculateShipment({ awb: `A${run}`, regime, personalFranchise: rand() < 0.7, products }, rules);
      const list = [...r.products.values()];
      for (const [p, t] of fields) {
        expect(list.reduce((s, b) => s + cents(b[p]), 0n), `${p} of run ${run}`).toBe(cents(r.totals[t]));
      }
      for (const b of list) {
        expect(cents(b.cif_value)).toBe(cents(b.fob_value) + cents(b.freight) + cents(b.insurance));
        expect(cents(b.ddp_value)).toBe(cents(b.cif_value) + cents(b.amount_to_pay));
        expect(cents(b.amount_to_pay)).toBe(cents(b.customs_duty) + cents(b.statistics_fee) + cents(b.vat));
        expect(cents(b.franchise_usd_applied) <= cents(b.fob_value)).toBe(true);
        expect(cents(b.duty_base) <= cents(b.cif_value)).toBe(true);
      }
      if (regime === 'P' && r.totals.franchise_usd_applied > 0) {
        expect(cents(r.totals.franchise_usd_applied)).toBe(cents(Math.min(400, r.totals.fob)));
      }
    }
  });
});

describe('determinism', () => {
  it('gives the same output for the same input twice', () => {
    const input = shipment('P', [
      { itemKey: 'a', fob_usd: 333.33, net_kg: 0.333, duty_rate: 18 },
      { itemKey: 'b', fob_usd: 166.67, volumetric_kg: 1.1, duty_rate: 12.6 },
    ]);
    const first = calculateShipment(input, taxRulesAt('2025-06-01'));
    const second = calculateShipment(structuredClone(input), taxRulesAt('2025-06-01'));
    expect(plain(second)).toEqual(plain(first));
    expect(JSON.stringify(plain(second))).toBe(JSON.stringify(plain(first)));
  });
});

describe('rules by effective date', () => {
  const base = taxRulesTable[0];
  const table: TaxRules[] = [base, { ...base, effective_from: '2026-01-01', source: 'a later resolution', vat_rate: 10.5 }];

  it('uses the entry in force on the day before a change', () => {
    expect(taxRulesAt('2025-12-31', {}, table).vat_rate).toBe(21);
  });

  it('uses the new entry from its first day', () => {
    const later = taxRulesAt('2026-01-01', {}, table);
    expect(later).toMatchObject({ vat_rate: 10.5, source: 'a later resolution' });
    const r = calculateShipment(shipment('C', [{ itemKey: 'a', fob_usd: 100, net_kg: 1, duty_rate: 0 }]), later);
    // CIF 100 + 5 + 1 = 106.00; fee 3% 3.18; VAT 10.5% of 109.18 = 11.4639 -> 11.46
    expect(product(r, 'a').vat).toBe(11.46);
  });

  it('refuses a date before the first entry, saying where the table starts, and a date that does not exist', () => {
    expect(() => taxRulesAt('2024-11-30')).toThrow(/no tax rules in force/);
    expect(() => taxRulesAt('2024-12-01')).toThrow(
      'no tax rules in force on 2024-12-01: the service carries the courier regime from 2024-12-02 (RG ARCA 5608/2024 (before the franchise of Decreto 1065/2024)); the earlier regime is not modelled',
    );
    expect(() => taxRulesAt('2025-02-30')).toThrow(RangeError);
  });

  it('refuses a setting that is not a plausible number', () => {
    expect(() => taxRulesAt('2025-06-01', { insurance_rate: 150 })).toThrow(RangeError);
    expect(() => taxRulesAt('2025-06-01', { freight_usd_per_kg: -1 })).toThrow(RangeError);
  });

  it('looks dates up on the Argentine calendar (UTC-3)', () => {
    expect(argentineDate('2024-12-01T02:59:59Z')).toBe('2024-11-30');
    expect(argentineDate('2024-12-01T03:00:00Z')).toBe('2024-12-01');
    expect(taxRulesAt('2026-01-01T02:00:00Z', {}, table).vat_rate).toBe(21);
    expect(taxRulesAt(new Date('2026-01-01T03:00:00Z'), {}, table).vat_rate).toBe(10.5);
  });
});

describe('the franchise on the days its norms enter into force', () => {
  // A personal shipment of FOB 120.00, 0.8 kg, NCM duty 20%: CIF 125.20 (freight 4.00, insurance 1.20).
  const personal = shipment('P', [{ itemKey: 'a', fob_usd: 120, net_kg: 0.8, duty_rate: 20 }]);

  it('cites for every row the norm, its article, its publication and its entry into force, and starts it on the last of those days', () => {
    expect(() => checkCitedTable(taxRulesTable, 'tax rules')).not.toThrow();
    expect(taxRulesTable.map((r) => r.effective_from)).toEqual(['2024-12-02', '2024-12-03']);
    expect(taxRulesTable[1].norms[0]).toMatchObject({ norm: 'Decreto 1065/2024', article: 'art. 1', published: '2024-12-02', in_force_from: '2024-12-03', gives: ['personal_franchise_usd'] });
  });

  it('gives a personal shipment of 2024-12-02 no franchise: RG 5608/2024 was in force, Decreto 1065/2024 not yet', () => {
    const r = calculateShipment(personal, taxRulesAt('2024-12-02'));
    // duty base = CIF 125.20; duty 20% 25.04; fee 3% 3.756 -> 3.76; VAT 21% of 154.00 = 32.34
    expect(product(r, 'a')).toMatchObject({ franchise_usd_applied: 0, duty_base: 125.2, customs_duty: 25.04, statistics_fee: 3.76, vat: 32.34 });
  });

  it('gives a personal shipment of 2024-12-03 the USD 400 franchise of Decreto 1065/2024', () => {
    const r = calculateShipment(personal, taxRulesAt('2024-12-03'));
    expect(product(r, 'a')).toMatchObject({ franchise_usd_applied: 120, duty_base: 0, customs_duty: 0, statistics_fee: 0, vat: 26.29 });
  });

  it('reads 2024-12-03T02:00:00Z as the 2nd in Argentina, without the franchise, and 03:00Z as the 3rd, with it', () => {
    expect(taxRulesAt('2024-12-03T02:00:00Z').personal_franchise_usd).toBe(0);
    expect(taxRulesAt(new Date('2024-12-03T02:59:59Z')).personal_franchise_usd).toBe(0);
    expect(taxRulesAt(new Date('2024-12-03T03:00:00Z')).personal_franchise_usd).toBe(400);
  });

  it('reads 2024-12-06T02:00:00Z as the 5th in Argentina, under the same franchise as the 6th', () => {
    expect(argentineDate('2024-12-06T02:00:00Z')).toBe('2024-12-05');
    expect(taxRulesAt('2024-12-06T02:00:00Z').effective_from).toBe('2024-12-03');
    expect(taxRulesAt('2024-12-06').personal_franchise_usd).toBe(400);
  });

  it('keeps the statistics fee and the VAT across both days', () => {
    for (const day of ['2024-12-02', '2024-12-03']) expect(taxRulesAt(day)).toMatchObject({ statistics_fee_rate: 3, vat_rate: 21 });
  });
});

describe('bad input', () => {
  it('refuses a shipment without products, a repeated key, a negative FOB and a duty rate above 100%', () => {
    expect(() => calculateShipment(shipment('C', []), rules)).toThrow(RangeError);
    expect(() =>
      calculateShipment(shipment('C', [{ itemKey: 'a', fob_usd: 1, duty_rate: 0 }, { itemKey: 'a', fob_usd: 1, duty_rate: 0 }]), rules),
    ).toThrow(/appears twice/);
    expect(() => calculateShipment(shipment('C', [{ itemKey: 'a', fob_usd: -1, duty_rate: 0 }]), rules)).toThrow(RangeError);
    expect(() => calculateShipment(shipment('C', [{ itemKey: 'a', fob_usd: 1, duty_rate: 101 }]), rules)).toThrow(RangeError);
  });
});
