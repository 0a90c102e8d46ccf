import { describe, expect, it } from 'vitest';
import type { ManifestItem } from '#core/manifests/submission';
import { classifyShipments, shipmentRegime, type ClassifyItem } from '#core/customs/regime';
import { argentineDay, quotaYear, regimeRulesAt, regimeRulesTable, type RegimeRules } from '#core/customs/regime-rules';
import { checkCitedTable } from '#core/customs/norms';

const person = '20123456786';
const company = '30712345671';

let n = 0;
function line(awb: string, over: Partial<ManifestItem> = {}): ClassifyItem {
  n += 1;
  return {
    itemKey: `k${n}`,
    awb,
    data: {
      awbNumber: awb,
      originCountry: 'CN',
      consigneeName: 'Ana Pérez',
      consigneeProvince: 'Buenos Aires',
      consigneeIdType: 'CUIL',
      consigneeIdNumber: person,
      itemDescription: `Item ${n}`,
      fobValueUsd: 10,
      totalWeightKg: 1,
      amountOfItems: 1,
      ...over,
    } as ManifestItem,
  };
}

const rules = regimeRulesAt('2026-03-01');
const classify = (items: ClassifyItem[], r: RegimeRules = rules) => classifyShipments(items, r);

describe('regime rules table', () => {
  it('holds the limits of the domain facts with their sources', () => {
    expect(regimeRulesTable[0]).toMatchObject({ effective_from: '2024-12-02', max_fob_usd_per_shipment: 3000, max_kg_per_package: 50, max_units_same_kind: 3, personal_shipments_per_year: 5, source: 'RG ARCA 5608/2024' });
    expect(regimeRulesTable.at(-1)).toMatchObject({ weight_limit_applies_to: 'package', source: 'RG ARCA 5631/2025' });
  });

  it('cites for every row the norm, its article, its publication and its entry into force', () => {
    for (const row of regimeRulesTable) {
      expect(row.norms.length).toBeGreaterThan(0);
      for (const n of row.norms) expect(n).toMatchObject({ norm: expect.any(String), article: expect.any(String), published: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), in_force_from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    }
    expect(regimeRulesTable[0].norms[0]).toMatchObject({ norm: 'RG ARCA 5608/2024', published: '2024-12-02', in_force_from: '2024-12-02' });
    expect(regimeRulesTable[1].norms.map((n) => n.norm)).toEqual(['RG ARCA 5608/2024', 'RG ARCA 5631/2025']);
    expect(regimeRulesTable[1].norms[1]).toMatchObject({ published: '2025-01-23', in_force_from: '2025-01-23', gives: ['weight_limit_applies_to'] });
  });

  it('starts every row on the day the last of its norms enters into force', () => {
    expect(() => checkCitedTable(regimeRulesTable, 'regime rules')).not.toThrow();
    const early = [{ ...regimeRulesTable[0], effective_from: '2024-12-01' }];
    expect(() => checkCitedTable(early, 'regime rules')).toThrow(/in force from 2024-12-02, not from its effective_from/);
  });

  it('picks the entry in force on the date', () => {
    expect(regimeRulesAt('2024-12-15').weight_limit_applies_to).toBe('shipment');
    expect(regimeRulesAt('2025-01-22').source).toContain('5608');
    expect(regimeRulesAt('2025-01-23').source).toBe('RG ARCA 5631/2025');
  });

  it('reads an instant on the Argentine calendar (UTC-3)', () => {
    expect(regimeRulesAt(new Date('2025-01-23T02:00:00Z')).source).toContain('5608');
    expect(regimeRulesAt(new Date('2025-01-23T03:00:00Z')).source).toBe('RG ARCA 5631/2025');
    expect(quotaYear(new Date('2026-01-01T02:59:59Z'))).toBe(2025);
    expect(quotaYear(new Date('2026-01-01T03:00:00Z'))).toBe(2026);
  });

  it('refuses a date before the first entry, saying where the table starts, and a malformed date', () => {
    expect(() => regimeRulesAt('2024-11-30')).toThrow(RangeError);
    expect(() => regimeRulesAt('2024-12-01')).toThrow('no regime rules in force on 2024-12-01: the service carries the courier regime from 2024-12-02 (RG ARCA 5608/2024); the earlier regime is not modelled');
    expect(() => regimeRulesAt('2026-02-30')).toThrow(RangeError);
  });
});

describe('the regime on the days its norms enter into force', () => {
  const heavy = () => [line('B1', { totalWeightKg: 30 }), line('B1', { totalWeightKg: 30 })];
  const dear = () => [line('B2', { fobValueUsd: 2999.99 })];
  const decide = (items: ClassifyItem[], at: string | Date) => classify(items, regimeRulesAt(at)).get(items[0].itemKey)!.regime;

  it('has no courier rules on 2024-12-01, the day before RG 5608/2024 was published and in force', () => {
    expect(() => regimeRulesAt('2024-12-01')).toThrow(RangeError);
  });

  it('gives a shipment of 2024-12-02 the USD 3,000 limit, 50 kg per shipment and 5 personal shipments a year', () => {
    const r = regimeRulesAt('2024-12-02');
    expect(r).toMatchObject({ max_fob_usd_per_shipment: 3000, max_kg_per_package: 50, weight_limit_applies_to: 'shipment', max_units_same_kind: 3, personal_shipments_per_year: 5 });
    expect(decide(dear(), '2024-12-02')).toBe('P');
    expect(decide([line('B3', { fobValueUsd: 3000.01 })], '2024-12-02')).toBe('X');
    expect(decide(heavy(), '2024-12-02')).toBe('X');
  });

  it('reads 2024-12-02T02:00:00Z as 2024-12-01 in Argentina, before the regime, and 03:00Z as its first day', () => {
    expect(() => regimeRulesAt(new Date('2024-12-02T02:00:00Z'))).toThrow(/no regime rules in force on 2024-12-01/);
    expect(regimeRulesAt(new Date('2024-12-02T03:00:00Z')).effective_from).toBe('2024-12-02');
  });

  it('reads 2024-12-06T02:00:00Z as the 5th in Argentina', () => {
    expect(argentineDay('2024-12-06T02:00:00Z')).toBe('2024-12-05');
    expect(argentineDay('2024-12-06T03:00:00Z')).toBe('2024-12-06');
  });

  it('weighs the whole shipment on 2025-01-22, the day before RG 5631/2025, and each package from 2025-01-23', () => {
    expect(decide(heavy(), '2025-01-22')).toBe('X');
    expect(decide(heavy(), '2025-01-23')).toBe('P');
    expect(decide(heavy(), new Date('2025-01-23T02:59:59Z'))).toBe('X');
    expect(decide(heavy(), new Date('2025-01-23T03:00:00Z'))).toBe('P');
  });

  it('keeps the USD 3,000 limit and the 5 personal shipments a year across 2025-01-23', () => {
    for (const day of ['2025-01-22', '2025-01-23']) {
      expect(regimeRulesAt(day)).toMatchObject({ max_fob_usd_per_shipment: 3000, max_kg_per_package: 50, personal_shipments_per_year: 5 });
    }
  });
});

describe('classification', () => {
  it('makes a person\'s small shipment personal, with its reasons', () => {
    const a = line('A1');
    const out = classify([a]).get(a.itemKey)!;
    expect(out.regime).toBe('P');
    expect(out.reasons[0]).toBe('personal: the consignee is a person (CUIL 20-12345678-6)');
    expect(out.reasons[1]).toContain('FOB USD 10.00 of USD 3,000.00');
  });

  it('makes a prohibited item X and judges the rest of the shipment without it', () => {
    const gun = line('A2', { itemDescription: 'Pistol 9mm', fobValueUsd: 5000 });
    const shirt = line('A2', { itemDescription: 'Cotton t-shirt' });
    const out = classify([gun, shirt]);
    expect(out.get(gun.itemKey)).toMatchObject({ regime: 'X', reasons: ['prohibited goods: Weapons: firearms, their parts, and electric or chemical self-defence weapons (description matches "pistol")'], prohibited: { id: 'weapons' } });
    expect(out.get(shirt.itemKey)!.regime).toBe('P');
  });

  it('checks the item name when the description says nothing prohibited', () => {
    const it1 = line('A3', { itemDescription: 'Sports item', itemName: 'Power bank 10000mAh' });
    expect(classify([it1]).get(it1.itemKey)!.regime).toBe('X');
  });

  it('makes the whole shipment X above USD 3,000 FOB, summed without float drift', () => {
    const items = [line('A4', { fobValueUsd: 1500.1 }), line('A4', { fobValueUsd: 1500 })];
    const out = classify(items);
    for (const it of items) {
      expect(out.get(it.itemKey)).toEqual({ regime: 'X', reasons: ['shipment FOB USD 3,000.10 is over the courier limit of USD 3,000.00 per shipment: cannot clear under the courier regime (RG ARCA 5631/2025)'] });
    }
    const exact = [line('A5', { fobValueUsd: 0.1 }), line('A5', { fobValueUsd: 0.2 }), line('A5', { fobValueUsd: 2999.7 })];
    expect(classify(exact).get(exact[0].itemKey)!.regime).toBe('P');
  });

  it('makes the shipment X when a package is over 50 kg (RG 5631/2025: per package)', () => {
    const heavy = line('A6', { totalWeightKg: 51 });
    const out = classify([heavy, line('A6')]).get(heavy.itemKey)!;
    expect(out.regime).toBe('X');
    expect(out.reasons[0]).toMatch(/weighs 51 kg, over the courier limit of 50 kg per package: cannot clear under the courier regime/);
  });

  it('spreads a line\'s weight over its packages and lets several packages pass 50 kg together', () => {
    const twoBoxes = line('A7', { totalWeightKg: 80, amountOfPackages: 2 });
    const other = line('A7', { totalWeightKg: 40 });
    expect(classify([twoBoxes, other]).get(twoBoxes.itemKey)!.regime).toBe('P');
  });

  it('applies 50 kg to the whole shipment under the earlier rule (RG 5608/2024)', () => {
    const items = [line('A8', { totalWeightKg: 30 }), line('A8', { totalWeightKg: 30 })];
    const out = classify(items, regimeRulesAt('2024-12-20')).get(items[0].itemKey)!;
    expect(out.regime).toBe('X');
    expect(out.reasons[0]).toBe('shipment weight 60 kg is over the courier limit of 50 kg per shipment: cannot clear under the courier regime (RG ARCA 5608/2024)');
  });

  it('makes a company\'s shipment commercial', () => {
    const it1 = line('A9', { consigneeIdType: 'CUIT', consigneeIdNumber: company });
    expect(classify([it1]).get(it1.itemKey)).toEqual({ regime: 'C', reasons: ['consignee is a company (CUIT 30-71234567-1)'] });
  });

  it('makes an international-purpose tax id commercial', () => {
    const intl = '50123456780'.slice(0, 10);
    const it1 = line('A10', { consigneeIdNumber: `${intl}${checkDigit(intl)}`, consigneeIdType: 'CUIT' });
    expect(classify([it1]).get(it1.itemKey)!.reasons[0]).toMatch(/^consignee's tax id is for international purposes/);
  });

  it('makes more than 3 units of the same HS subheading commercial', () => {
    const items = [line('A11', { hsCode: '6109.10.00', amountOfItems: 2, itemDescription: 'Red shirt' }), line('A11', { hsCode: '610910', amountOfItems: 2, itemDescription: 'Blue shirt' })];
    const out = classify(items).get(items[0].itemKey)!;
    expect(out).toEqual({ regime: 'C', reasons: ['more than 3 units of the same kind (4 units of HS 610910): not a personal shipment'] });
  });

  it('makes more than 3 units of the same description commercial, whatever the case and accents', () => {
    const items = [line('A12', { itemDescription: 'Funda de teléfono', amountOfItems: 3 }), line('A12', { itemDescription: 'FUNDA DE TELEFONO' })];
    expect(classify(items).get(items[1].itemKey)!.reasons[0]).toContain('4 units of "Funda de teléfono"');
  });

  it('keeps 3 units of a kind personal and counts a missing quantity as 1', () => {
    const items = [line('A13', { itemDescription: 'Mug', amountOfItems: 2 }), line('A13', { itemDescription: 'Mug', amountOfItems: undefined })];
    expect(classify(items).get(items[0].itemKey)!.regime).toBe('P');
  });

  it('keeps every reason when several make a shipment commercial', () => {
    const it1 = line('A14', { consigneeIdNumber: company, consigneeIdType: 'CUIT', itemDescription: 'Mug', amountOfItems: 10 });
    expect(classify([it1]).get(it1.itemKey)!.reasons).toHaveLength(2);
  });

  it('classifies each AWB as its own shipment', () => {
    const a = line('B1', { fobValueUsd: 2000 });
    const b = line('B2', { fobValueUsd: 2000 });
    const out = classify([a, b]);
    expect([out.get(a.itemKey)!.regime, out.get(b.itemKey)!.regime]).toEqual(['P', 'P']);
  });

  it('leaves a personal shipment without a tax id to the tax-id check, and says so', () => {
    const it1 = line('B3', { consigneeIdNumber: undefined, consigneeIdType: undefined });
    const out = classify([it1]).get(it1.itemKey)!;
    expect(out.regime).toBe('P');
    expect(out.reasons[0]).toBe("personal: the consignee's kind is not known from the tax id (no tax id); the tax-id check decides");
  });

  it('gives a shipment the regime of its items: P, else C, else X', () => {
    expect(shipmentRegime([{ regime: 'X' }, { regime: 'P' }])).toBe('P');
    expect(shipmentRegime([{ regime: 'X' }, { regime: 'C' }])).toBe('C');
    expect(shipmentRegime([{ regime: 'X' }])).toBe('X');
  });
});

function checkDigit(first10: string): number {
  const w = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  const d = 11 - ([...first10].reduce((s, c, i) => s + Number(c) * w[i], 0) % 11);
  return d === 11 ? 0 : d === 10 ? 9 : d;
}
