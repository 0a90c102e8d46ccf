import { describe, expect, it } from 'vitest';
import { calculateShipment } from '#core/customs/calculate';
import { taxRulesAt } from '#core/customs/tax-rules';
import { builtinDutySource, statisticsFeeAt, tariffRatesOf, vatAt, vatRulesTable } from '#core/customs/tariff-rates';
import { builtinTariff } from '#core/tariff/builtin';

const rules = taxRulesAt('2025-06-01');

describe('VAT per NCM', () => {
  it('exempts books and periodicals, marked unverified because no copy of art. 7 was found', () => {
    const books = vatAt('4901.99.00', '2025-06-01');
    expect(books).toMatchObject({ rate: 0, status: 'unverified' });
    expect(books.note).toMatch(/no copy/);
    expect(vatAt('49020000', '2025-06-01').rate).toBe(0);
  });

  it('charges apparel the general 21%, verified against art. 28', () => {
    expect(vatAt('6109.10.00', '2025-06-01')).toMatchObject({ rate: 21, status: 'verified', read: '2026-11-24' });
  });

  it('keeps retail honey at 21% because only bulk honey is on the reduced list', () => {
    const honey = vatAt('0409.00.00', '2025-06-01');
    expect(honey).toMatchObject({ rate: 21, status: 'verified' });
    expect(honey.source).toMatch(/a granel/);
  });

  it('marks electronics unverified: the capital-goods list of art. 28 c) was not found', () => {
    expect(vatAt('8471.30.12', '2025-06-01')).toMatchObject({ rate: 21, status: 'unverified' });
  });

  it('refuses a date before the first VAT entry', () => {
    expect(() => vatAt('6109.10.00', '2020-01-01')).toThrow(/no VAT rules in force/);
  });

  it('reads the entry in force on the date when the law changes', () => {
    const later = [...vatRulesTable, { effective_from: '2027-01-01', general: { rate: 19, basis: 'a later law' }, rules: [] }];
    expect(vatAt('6109.10.00', '2026-12-31', later).rate).toBe(21);
    expect(vatAt('6109.10.00', '2027-01-01', later)).toMatchObject({ rate: 19, source: 'a later law' });
  });
});

describe('the statistics fee', () => {
  it('is verified at 3% until the end of 2027 (Decreto 1140/2024)', () => {
    expect(statisticsFeeAt(3, '2025-06-01')).toMatchObject({ status: 'verified', source: expect.stringMatching(/1140\/2024/) });
    expect(statisticsFeeAt(3, '2028-01-01').status).toBe('unverified');
  });

  it('is unverified when a setting replaced the cited rate', () => {
    expect(statisticsFeeAt(2.5, '2025-06-01')).toMatchObject({ status: 'unverified', note: expect.stringMatching(/3%/) });
  });
});

describe('the built-in table', () => {
  it('gives every row a duty source, each marked unverified with the reason', () => {
    for (const row of builtinTariff) {
      expect(row.duty_source, row.ncm).toEqual(builtinDutySource);
    }
    expect(builtinDutySource.note).toMatch(/no per-NCM source/);
  });

  it('gives every row a VAT of 21, 10.5 or 0 with a source', () => {
    for (const row of builtinTariff) {
      const vat = vatAt(row.ncm, '2025-06-01');
      expect([0, 10.5, 21], row.ncm).toContain(vat.rate);
      expect(vat.source.length, row.ncm).toBeGreaterThan(10);
    }
  });
});

describe('a product\'s rates', () => {
  it('are verified only when duty, statistics fee and VAT all are', () => {
    const imported = tariffRatesOf({ ncm: '6109.10.00', duty_rate: 35, duty_source: { status: 'imported', source: 'the table' }, statistics_fee_rate: 3, date: '2025-06-01' });
    expect(imported.verified).toBe(true);
    const builtin = tariffRatesOf({ ncm: '6109.10.00', duty_rate: 35, duty_source: builtinDutySource, statistics_fee_rate: 3, date: '2025-06-01' });
    expect(builtin).toMatchObject({ verified: false, duty: { rate: 35, status: 'unverified' }, vat: { rate: 21, status: 'verified' } });
  });
});

describe('VAT in the calculation', () => {
  it('charges a VAT-exempt NCM no VAT and says why', () => {
    const r = calculateShipment({ awb: 'A1', regime: 'C', personalFranchise: false, products: [{ itemKey: 'book', fob_usd: 100, net_kg: 1, duty_rate: 0, vat_rate: 0 }] }, rules);
    const b = r.products.get('book')!;
    expect(b).toMatchObject({ vat_rate: 0, vat: 0, cif_value: 106, ddp_value: 109.18, amount_to_pay: 3.18 });
    expect(b.explanation).toContain('VAT 0.00 = 0% (VAT-exempt NCM) of VAT base 109.18 (CIF 106.00 + duty 0.00 + statistics fee 3.18)');
  });

  it('charges a reduced NCM 10.5%', () => {
    // CIF 100 + 5 freight + 1 insurance = 106; duty 10% = 10.60; fee 3.18; VAT base 119.78; 10.5% = 12.5769 -> 12.58
    const r = calculateShipment({ awb: 'A1', regime: 'C', personalFranchise: false, products: [{ itemKey: 'x', fob_usd: 100, net_kg: 1, duty_rate: 10, vat_rate: 10.5 }] }, rules);
    expect(r.products.get('x')).toMatchObject({ vat_rate: 10.5, vat_base: 119.78, vat: 12.58 });
  });

  it('lets an explicit VAT setting replace the NCM rate', () => {
    const r = calculateShipment(
      { awb: 'A1', regime: 'C', personalFranchise: false, products: [{ itemKey: 'book', fob_usd: 100, net_kg: 1, duty_rate: 0, vat_rate: 0 }] },
      taxRulesAt('2025-06-01', { vat_rate: 21 }),
    );
    expect(r.products.get('book')).toMatchObject({ vat_rate: 21, vat: 22.93 });
  });

  it('refuses a VAT rate that is not a percent', () => {
    expect(() =>
      calculateShipment({ awb: 'A1', regime: 'C', personalFranchise: false, products: [{ itemKey: 'x', fob_usd: 1, duty_rate: 0, vat_rate: 101 }] }, rules),
    ).toThrow(/vat_rate/);
  });
});
