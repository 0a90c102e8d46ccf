import { describe, expect, it } from 'vitest';
import {
  allocate,
  decTimesToCents,
  formatCents,
  mulDiv,
  parseDec,
  percentOf,
  sumCents,
  toCents,
  toCentsExact,
  toNumber,
} from '#core/customs/money';
import { prng } from '#twin/prng';


describe('exact parsing', () => {
  it('reads 0.1 and 0.2 as exact cents, so they add up to exactly 0.3', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(toCents(0.1) + toCents(0.2)).toBe(toCents(0.3));
    expect(toNumber(toCents(0.1) + toCents(0.2))).toBe(0.3);
  });

  it('reads 12.5 as 1250 cents from its decimal text', () => {
    expect(toCents(12.5)).toBe(1250n);
    expect(toCents('12.50')).toBe(1250n);
  });

  it('reads a number whose float product drifts (1.15 x 100 = 114.99999999999999) exactly', () => {
    expect(1.15 * 100).not.toBe(115);
    expect(toCents(1.15)).toBe(115n);
    expect(toCents(4.35)).toBe(435n);
  });

  it('reads numbers written with an exponent', () => {
    expect(parseDec(1e-7)).toEqual({ units: 1n, scale: 7 });
    expect(parseDec(1e21)).toEqual({ units: 10n ** 21n, scale: 0 });
    expect(toCents(2.5e3)).toBe(250000n);
  });

  it('rounds an amount with more than 2 decimals half up once, on its decimal text', () => {
    expect(1.005 * 100).toBeLessThan(100.5); // float would round 1.005 down to 1.00
    expect(toCents(1.005)).toBe(101n);
    expect(toCents(12.344)).toBe(1234n);
    expect(toCents(12.345)).toBe(1235n);
  });

  it('refuses more than 2 decimals when asked for an exact amount', () => {
    expect(() => toCentsExact(1.005)).toThrow(RangeError);
    expect(toCentsExact(1.05)).toBe(105n);
  });

  it('refuses values that are not finite numbers', () => {
    expect(() => toCents(Number.NaN)).toThrow(RangeError);
    expect(() => toCents(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => toCents('12,5')).toThrow(RangeError);
  });
});

describe('formatting', () => {
  it('writes cents as text with exactly 2 decimals', () => {
    expect(formatCents(1250n)).toBe('12.50');
    expect(formatCents(5n)).toBe('0.05');
    expect(formatCents(0n)).toBe('0.00');
    expect(formatCents(123456789n)).toBe('1234567.89');
  });

  it('writes cents as the JSON number of the 2-decimal value', () => {
    expect(toNumber(1250n)).toBe(12.5);
    expect(toNumber(1999n)).toBe(19.99);
    expect(JSON.stringify({ v: toNumber(30n) })).toBe('{"v":0.3}');
  });
});

describe('rounded steps', () => {
  it('takes a percent of an amount and rounds half up to the cent', () => {
    expect(percentOf(50n, parseDec(21))).toBe(11n); // 0.105 -> 0.11
    expect(percentOf(12520n, parseDec(21))).toBe(2629n); // 26.292 -> 26.29
    expect(percentOf(10000n, parseDec(0.5))).toBe(50n);
  });

  it('multiplies a USD rate by a decimal quantity and rounds half up to the cent', () => {
    expect(decTimesToCents(parseDec(4.6), parseDec(0.35))).toBe(161n); // 1.61
    expect(decTimesToCents(parseDec(5), parseDec(0.333))).toBe(167n); // 1.665 -> 1.67
  });

  it('takes a proportional share rounded half up', () => {
    expect(mulDiv(41000n, 13333n, 40000n)).toBe(13666n); // 136.66
  });
});

describe('allocation', () => {
  it('gives leftover cents to the largest remainders', () => {
    expect(allocate(100n, [1n, 2n])).toEqual([33n, 67n]);
  });

  it('breaks ties in favour of the earlier part', () => {
    expect(allocate(1n, [1n, 1n, 1n])).toEqual([1n, 0n, 0n]);
    expect(allocate(40000n, [20000n, 20000n, 20000n])).toEqual([13334n, 13333n, 13333n]);
  });

  it('splits equally when every weight is zero', () => {
    expect(allocate(10n, [0n, 0n, 0n])).toEqual([4n, 3n, 3n]);
  });

  it('adds up exactly to the total over random totals and weights', () => {
    const rand = prng(20250601);
    for (let run = 0; run < 2000; run++) {
      const n = 1 + Math.floor(rand() * 12);
      const weights = Array.from({ length: n }, () => BigInt(Math.floor(rand() * (rand() < 0.2 ? 3 : 1_000_000))));
      const total = BigInt(Math.floor(rand() * 10_000_000));
      const parts = allocate(total, weights);
      expect(parts).toHaveLength(n);
      expect(sumCents(parts)).toBe(total);
      const sum = sumCents(weights);
      parts.forEach((p, i) => {
        expect(p >= 0n).toBe(true);
        if (sum > 0n) {
          // each part is its exact share rounded down or up
          const floor = (total * weights[i]) / sum;
          expect(p === floor || p === floor + 1n).toBe(true);
        }
      });
    }
  });

  it('never gives a part more than its own weight when the total is at most the sum of the weights', () => {
    const rand = prng(7);
    for (let run = 0; run < 2000; run++) {
      const weights = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => BigInt(Math.floor(rand() * 50_000)));
      const sum = sumCents(weights);
      const total = sum === 0n ? 0n : BigInt(Math.floor(rand() * Number(sum + 1n)));
      allocate(total, weights).forEach((p, i) => expect(p <= weights[i]).toBe(true));
    }
  });

  it('refuses a negative total or weight', () => {
    expect(() => allocate(-1n, [1n])).toThrow(RangeError);
    expect(() => allocate(1n, [-1n, 2n])).toThrow(RangeError);
  });
});
