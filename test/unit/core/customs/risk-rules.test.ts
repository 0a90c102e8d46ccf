import { describe, expect, it } from 'vitest';
import {
  acrossCouriers,
  addToFlight,
  consigneeSeen,
  holdsHash,
  othersInWindow,
  sortedHashes,
  taxGroups,
  taxKeyHash,
  windowDays,
  windowStart,
  type ConsigneeSeen,
  binValue,
  consigneeKeys,
  flightFlags,
  parseRiskSettings,
  riskCodes,
  riskRuleCatalog,
  riskRulesAt,
  tallyRisk,
  emptyRiskTally,
  underValuation,
  valueBin,
  valueStats,
  Flight,
  type RiskItem,
  type RiskResult,
} from '#core/customs/risk-rules';
import { cuitCheckDigit } from '#core/customs/tax-id';

const at = new Date('2026-03-16T12:00:00Z');
const rules = riskRulesAt(at);

/** A valid CUIL of person `n`. */
function cuil(n: number): string {
  const first10 = `20${String(10_000_000 + n).padStart(8, '0')}`;
  return first10 + cuitCheckDigit(first10);
}

const line = (o: Partial<RiskItem> = {}): RiskItem => ({ consigneeName: 'Ana Pérez', consigneeIdNumber: cuil(1), itemDescription: 'Auriculares', fobValueUsd: 100, ...o });

/** The flags of a flight given as AWB -> its lines (and the lines' results). */
function flagsOf(awbs: Record<string, (RiskItem | [RiskItem, RiskResult])[]>) {
  const flight = new Flight();
  for (const [awb, lines] of Object.entries(awbs)) for (const l of lines) (Array.isArray(l) ? addToFlight(flight, awb, l[0], l[1]) : addToFlight(flight, awb, l, undefined));
  return flightFlags(flight.awbs, rules);
}
const codes = (flags: ReadonlyMap<string, readonly { code: string }[]>, awb: string) => (flags.get(awb) ?? []).map((f) => f.code);

describe('the risk rules', () => {
  it('each rule has a code, a reason in Spanish and in English, and a norm', () => {
    for (const code of riskCodes) {
      const r = riskRuleCatalog[code];
      expect(r.es.length).toBeGreaterThan(20);
      expect(r.en.length).toBeGreaterThan(20);
      expect(r.norm).toMatch(/RG ARCA|Decreto|Ley/);
    }
  });

  it('take the courier limit, the franchise and the units of a kind from the regime and tax rules in force', () => {
    expect(rules).toMatchObject({ enabled: true, split_max_fob_usd: 3000, split_franchise_usd: 400, split_max_units_same_kind: 3, undervaluation_min_sample: 30 });
  });

  it('a setting replaces a number, and a setting that is not a number >= 0 (or a share above 1) is refused', () => {
    expect(riskRulesAt(at, parseRiskSettings('{"undervaluation_robust_z": 5, "enabled": false}'))).toMatchObject({ undervaluation_robust_z: 5, enabled: false });
    expect(() => riskRulesAt(at, { undervaluation_min_sample: -1 })).toThrow(RangeError);
    expect(() => riskRulesAt(at, { undervaluation_max_share_of_median: 1.5 })).toThrow(RangeError);
    expect(() => parseRiskSettings('[1]')).toThrow(RangeError);
    expect(parseRiskSettings(undefined)).toEqual({});
  });
});

describe('a split shipment', () => {
  it('two AWBs of one tax id at exactly USD 3,000 together are not over the courier limit, one cent more is', () => {
    const at3000 = flagsOf({ A1: [line({ fobValueUsd: 1500 })], A2: [line({ fobValueUsd: 1500 })] });
    expect(at3000.size).toBe(0); // each AWB is over the franchise on its own: not a franchise split either
    const past = flagsOf({ A1: [line({ fobValueUsd: 1500 })], A2: [line({ fobValueUsd: 1500.01 })] });
    expect(codes(past, 'A1')).toEqual(['split_over_courier_limit']);
    expect(codes(past, 'A2')).toEqual(['split_over_courier_limit']);
    expect(past.get('A1')![0].reason).toContain('USD 3.000,01');
    expect(past.get('A1')![0].reason_en).toContain('USD 3,000.01');
    expect(past.get('A1')![0].norm).toBe(riskRuleCatalog.split_over_courier_limit.norm);
  });

  it('two AWBs at exactly the USD 400 franchise together are not flagged, one cent more is', () => {
    expect(flagsOf({ A1: [line({ fobValueUsd: 200 })], A2: [line({ fobValueUsd: 200 })] }).size).toBe(0);
    expect(codes(flagsOf({ A1: [line({ fobValueUsd: 200 })], A2: [line({ fobValueUsd: 200.01 })] }), 'A2')).toEqual(['split_over_franchise']);
  });

  it('an AWB over the limit on its own is not a split (the regime judges it)', () => {
    expect(flagsOf({ A1: [line({ fobValueUsd: 450 })], A2: [line({ fobValueUsd: 10 })] }).size).toBe(0);
  });

  it('3 units of a kind across AWBs are not flagged, 4 are', () => {
    const cheap = { fobValueUsd: 10 };
    expect(flagsOf({ A1: [line({ ...cheap, amountOfItems: 2 })], A2: [line({ ...cheap, amountOfItems: 1 })] }).size).toBe(0);
    const four = flagsOf({ A1: [line({ ...cheap, amountOfItems: 2 })], A2: [line({ ...cheap, itemDescription: 'AURICULARES!', amountOfItems: 2 })] });
    expect(codes(four, 'A1')).toEqual(['split_over_units']);
    expect(four.get('A1')![0].reason).toContain('4 unidades de la misma especie ("auriculares")');
  });

  it('one AWB alone, or two AWBs of different consignees, are never a split', () => {
    expect(flagsOf({ A1: [line({ fobValueUsd: 350 }), line({ fobValueUsd: 350 })] }).size).toBe(0);
    expect(flagsOf({ A1: [line({ fobValueUsd: 2000 })], A2: [line({ fobValueUsd: 2000, consigneeIdNumber: cuil(2), consigneeName: 'Otro' })] }).size).toBe(0);
  });

  it('a CUIL and the DNI inside it are one consignee', () => {
    const dni = cuil(7).slice(2, 10);
    const f = flagsOf({ A1: [line({ consigneeIdNumber: cuil(7), fobValueUsd: 300 })], A2: [line({ consigneeIdType: 'DNI', consigneeIdNumber: dni, fobValueUsd: 300 })] });
    expect(codes(f, 'A2')).toEqual(['split_over_franchise']);
  });

  it('without a tax id, the same name and address joins AWBs, with case, accents, punctuation and spacing folded', () => {
    const a = line({ consigneeIdNumber: undefined, consigneeName: 'José  Pérez', consigneeAddress: 'Av. Corrientes 1234, 5°B', fobValueUsd: 300 });
    const b = line({ consigneeIdNumber: undefined, consigneeName: 'JOSE PEREZ', consigneeAddress: 'av corrientes 1234 5 b', fobValueUsd: 300 });
    expect(consigneeKeys(a).keys).toEqual(consigneeKeys(b).keys);
    const f = flagsOf({ A1: [a], A2: [b] });
    expect(codes(f, 'A1')).toEqual(['split_over_franchise']);
    expect(f.get('A1')![0].reason).toContain('José  Pérez, Av. Corrientes 1234, 5°B: 2 guías en este vuelo (A1, A2)');
  });

  it('the same name at another address, or a name without an address, joins nothing', () => {
    const a = line({ consigneeIdNumber: undefined, consigneeAddress: 'Calle 1', fobValueUsd: 300 });
    expect(flagsOf({ A1: [a], A2: [{ ...a, consigneeAddress: 'Calle 2' }] }).size).toBe(0);
    expect(consigneeKeys(line({ consigneeIdNumber: undefined })).keys).toEqual([]);
  });
});

describe('a quota run out in the flight', () => {
  const reserved: RiskResult = { quota: 0, tax_id_alert: null };
  const usedUp: RiskResult = { quota: 0, tax_id_alert: 'quota used up (0 of 5 personal shipments left in 2026)' };

  it('flags every AWB of the tax id when one took a personal slot and another found the year used up', () => {
    const f = flagsOf({ A1: [[line({ fobValueUsd: 10 }), reserved]], A2: [[line({ fobValueUsd: 10 }), usedUp]], A3: [[line({ fobValueUsd: 10 }), usedUp]] });
    for (const awb of ['A1', 'A2', 'A3']) expect(codes(f, awb)).toEqual(['quota_ran_out_in_flight']);
    expect(f.get('A1')![0].reason).toContain('3 guías (A1, A2, A3), 1 como personal y 2 ya sin cupo');
  });

  it('a quota used up before the flight (no slot taken in it) is not flagged', () => {
    expect(flagsOf({ A1: [[line({ fobValueUsd: 10 }), usedUp]], A2: [[line({ fobValueUsd: 10 }), usedUp]] }).size).toBe(0);
  });
});

describe('under-valuation', () => {
  /** A history of `n` values spread around `median` (5% steps either side). */
  const history = (n: number, median: number) => {
    const h = new Map<number, number>();
    for (let k = 0; k < n; k++) {
      const b = valueBin(median * 1.05 ** ((k % 5) - 2));
      h.set(b, (h.get(b) ?? 0) + 1);
    }
    return valueStats(h);
  };

  it('the histogram answers the median within a bin and a MAD of at least one bin', () => {
    const s = history(50, 100);
    expect(s.n).toBe(50);
    expect(s.median).toBeCloseTo(binValue(valueBin(100)), 6);
    expect(s.madLog).toBeCloseTo(Math.log(1.05), 6);
  });

  it('flags a unit value far below the median, and not one at half of it with a spread history', () => {
    const s = history(50, 100);
    expect(underValuation('85171300', 10, s, rules)?.code).toBe('under_valuation');
    expect(underValuation('85171300', 10, s, rules)?.reason).toMatch(/^FOB por unidad USD 10,00, 10% de la mediana de la NCM 85171300/);
    expect(underValuation('85171300', 90, s, rules)).toBeNull();
  });

  it('judges at and just past the share of the median: at half is flagged, just over half is not', () => {
    const s = history(50, 100);
    const half = s.median * rules.undervaluation_max_share_of_median;
    expect(underValuation('85171300', half, s, rules)).not.toBeNull();
    expect(underValuation('85171300', half * 1.001, s, rules)).toBeNull();
  });

  it('judges at and just past the robust z threshold', () => {
    const s = history(50, 100);
    // z = 0.6745 ln(x / median) / MAD: the x whose z is exactly -threshold.
    const atThreshold = s.median * Math.exp((-rules.undervaluation_robust_z * s.madLog) / 0.6745);
    const loose = { ...rules, undervaluation_max_share_of_median: 1 };
    expect(underValuation('85171300', atThreshold * 0.9999, s, loose)).not.toBeNull();
    expect(underValuation('85171300', atThreshold * 1.01, s, loose)).toBeNull();
  });

  it('needs the minimum sample: 29 values judge nothing, 30 do', () => {
    expect(underValuation('85171300', 1, history(29, 100), rules)).toBeNull();
    expect(underValuation('85171300', 1, history(30, 100), rules)).not.toBeNull();
    expect(underValuation('85171300', 1, undefined, rules)).toBeNull();
  });

  it('keeps the history bounded: a million values of any spread fit in at most 601 bins', () => {
    const h = new Map<number, number>();
    for (let k = 0; k < 1_000_000; k += 97) {
      const b = valueBin(1e-6 * 1.0003 ** k);
      h.set(b, (h.get(b) ?? 0) + 1);
    }
    expect(h.size).toBeLessThanOrEqual(601);
    expect(Math.max(...h.keys())).toBeLessThanOrEqual(600);
    expect(Math.min(...h.keys())).toBeGreaterThanOrEqual(0);
  });
});

describe('the summary’s count', () => {
  it('counts products flagged, flags in all and flags by rule', () => {
    const t = emptyRiskTally();
    tallyRisk(t, [{ code: 'under_valuation' }, { code: 'split_over_units' }]);
    tallyRisk(t, [{ code: 'under_valuation' }]);
    tallyRisk(t, undefined);
    tallyRisk(t, []);
    expect(t).toEqual({ products: 2, total: 3, by_rule: { under_valuation: 2, split_over_units: 1 } });
  });
});

describe('the rule across couriers', () => {
  const person = cuil(7);
  /** This flight's summary of `person`: its AWBs as lines. */
  function mine(awbs: Record<string, RiskItem[]>) {
    const flight = new Flight();
    for (const [awb, lines] of Object.entries(awbs)) for (const l of lines) addToFlight(flight, awb, l, undefined);
    const [g] = taxGroups(flight.awbs).values();
    return { label: g.label, seen: consigneeSeen(g.awbs.map((a) => flight.awbs.get(a)!), 1, '2026-03-16') };
  }
  const other = (o: Partial<ConsigneeSeen> = {}): ConsigneeSeen => ({ account: 2, day: '2026-03-14', awbs: 1, fob: 250 * 10_000, largest: 250 * 10_000, kinds: {}, ...o });

  it('counts the window back from the run’s date, that day included', () => {
    expect(windowStart(at, 7)).toBe('2026-03-10');
    expect(windowStart('2026-03-01T01:00:00Z', 1)).toBe('2026-03-01');
    const seen = [other({ day: '2026-03-09' }), other({ day: '2026-03-10' }), other({ account: 1, day: '2026-03-16' })];
    expect(othersInWindow(seen, 1, windowStart(at, 7))).toEqual([seen[1]]);
  });

  it('flags what is over the franchise only together, with counts and sums and no other courier named', () => {
    const m = mine({ A1: [line({ consigneeIdNumber: person, fobValueUsd: 250 })] });
    const flag = acrossCouriers(m.label, m.seen, [other(), other({ account: 3 })], rules)!;
    expect(flag.code).toBe('split_across_couriers');
    expect(flag.reason).toBe(
      `CUIL ${person.slice(0, 2)}-${person.slice(2, 10)}-${person.slice(10)}: 1 guía en este vuelo y 2 guías de 2 otros couriers en los últimos 7 días suman USD 750,00 FOB, sobre la franquicia de USD 400,00; ninguna guía lo supera sola.`,
    );
    expect(flag.reason_en).toContain('1 AWB on this flight and 2 AWBs of 2 other couriers in the last 7 days total USD 750.00 FOB, over the USD 400.00 franchise');
  });

  it('names the courier limit before the franchise, and the units of a kind beside it', () => {
    const m = mine({ A1: [line({ consigneeIdNumber: person, fobValueUsd: 2000, amountOfItems: 2, itemDescription: 'Zapatillas' })] });
    const flag = acrossCouriers(m.label, m.seen, [other({ fob: 2000 * 10_000, largest: 2000 * 10_000, kinds: { zapatillas: [2, 2] } })], rules)!;
    expect(flag.reason).toContain('suman USD 4.000,00 FOB, sobre el límite de USD 3.000,00 por envío del régimen courier y llevan 4 unidades de la misma especie ("zapatillas"), más de 3');
  });

  it('leaves alone what is within every limit together, what another courier sent over a limit on its own, and a flight with no other courier', () => {
    const m = mine({ A1: [line({ consigneeIdNumber: person, fobValueUsd: 100 })] });
    expect(acrossCouriers(m.label, m.seen, [other({ fob: 100 * 10_000, largest: 100 * 10_000 })], rules)).toBeNull();
    expect(acrossCouriers(m.label, m.seen, [other({ fob: 500 * 10_000, largest: 500 * 10_000 })], rules)).toBeNull();
    expect(acrossCouriers(m.label, m.seen, [], rules)).toBeNull();
  });

  it('keeps a flight’s summary small: five kinds at most, whatever the flight holds', () => {
    const lines = Array.from({ length: 40 }, (_, k) => line({ consigneeIdNumber: person, itemDescription: `Producto ${k}`, amountOfItems: 1 + (k % 3) }));
    const m = mine({ A1: lines.slice(0, 20), A2: lines.slice(20) });
    expect(Object.keys(m.seen.kinds)).toHaveLength(5);
    expect(m.seen).toMatchObject({ account: 1, day: '2026-03-16', awbs: 2, fob: 40 * 100 * 10_000 });
    expect(JSON.stringify(m.seen).length).toBeLessThan(400);
  });

  it('finds a flight’s tax ids by their hashes: sorted, without repeats, each found and a stranger not', () => {
    const keys = Array.from({ length: 5000 }, (_, k) => `T:${20_000_000 + k}`);
    const sorted = sortedHashes([...keys, ...keys.slice(0, 10)]);
    expect(sorted).toHaveLength(5000);
    expect([...sorted].every((h, i) => i === 0 || sorted[i - 1] < h)).toBe(true);
    expect(keys.every((k) => holdsHash(sorted, taxKeyHash(k)))).toBe(true);
    const strangers = Array.from({ length: 5000 }, (_, k) => `T:${30_000_000 + k}`);
    expect(strangers.filter((k) => holdsHash(sorted, taxKeyHash(k))).length).toBeLessThanOrEqual(1);
    expect(holdsHash(new Uint32Array(), 1)).toBe(false);
  });

  it('reads the days of the window, the run’s own first', () => {
    expect(windowDays(at, 3)).toEqual(['2026-03-16', '2026-03-15', '2026-03-14']);
    expect(windowDays(at, 7).at(-1)).toBe(windowStart(at, 7));
  });

  it('takes its window from the setting, a whole number of days from 1 to 31', () => {
    expect(rules.cross_courier_window_days).toBe(7);
    expect(riskRulesAt(at, { cross_courier_window_days: 3 }).cross_courier_window_days).toBe(3);
    expect(() => riskRulesAt(at, { cross_courier_window_days: 0 })).toThrow(RangeError);
    expect(() => riskRulesAt(at, { cross_courier_window_days: 1.5 })).toThrow(RangeError);
    expect(() => riskRulesAt(at, { cross_courier_window_days: 32 })).toThrow(RangeError);
  });
});
