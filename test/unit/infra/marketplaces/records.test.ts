import { describe, expect, it } from 'vitest';
import { amount, count, instant, RecordError, sum } from '#infra/marketplaces/records';

describe('reading marketplace records', () => {
  it('reads amounts sent as numbers or as decimal text', () => {
    expect(amount('12.50', 'x')).toBe(12.5);
    expect(amount(' 7 ', 'x')).toBe(7);
    expect(amount(0, 'x')).toBe(0);
  });

  it('refuses an amount that is not a plain non-negative decimal', () => {
    for (const bad of ['twelve', '', '1e3', '0x10', '-1', '1,50', 'NaN', NaN, Infinity, -3, null, undefined, {}]) {
      expect(() => amount(bad, 'OrderTotal.Amount')).toThrow(RecordError);
    }
    expect(() => amount('N/A', 'OrderTotal.Amount')).toThrow('OrderTotal.Amount is not an amount: "N/A"');
  });

  it('reads quantities as whole numbers only', () => {
    expect(count(3, 'q')).toBe(3);
    expect(count('2', 'q')).toBe(2);
    expect(() => count(1.5, 'q')).toThrow(RecordError);
  });

  it('adds money without float noise', () => {
    expect(sum([0.1, 0.2])).toBe(0.3);
    expect(sum([19.99, 19.99, 19.99])).toBe(59.97);
  });

  it('turns any offset into UTC', () => {
    expect(instant('2025-03-02T10:00:00.000-03:00', 'd')).toBe('2025-03-02T13:00:00.000Z');
    expect(() => instant('yesterday', 'd')).toThrow(RecordError);
  });
});
