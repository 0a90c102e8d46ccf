import { describe, expect, it } from 'vitest';
import { answerFrom, historyYearsAt, holderOf, holderOrNull, quotaLimit, quotaSlot, releaseYears } from '#core/customs/quota';
import { regimeRulesAt } from '#core/customs/regime-rules';

const at = new Date('2026-03-16T12:00:00Z');

describe('quota rules', () => {
  it('a year has the regime rules’ personal shipments unless a limit is given', () => {
    expect(quotaLimit(at)).toBe(regimeRulesAt(at).personal_shipments_per_year);
    expect(quotaLimit(at, 2)).toBe(2);
  });

  it('a person has 5 personal shipments a year from 2024-12-02 (RG 5608/2024), and none is counted on an Argentine date before it', () => {
    expect(quotaLimit(new Date('2024-12-02T03:00:00Z'))).toBe(5);
    expect(() => quotaLimit(new Date('2024-12-02T02:59:59Z'))).toThrow(/no regime rules in force on 2024-12-01/);
  });

  it('a counter holding the AWB’s slot answers it reserved before, counting nothing', () => {
    const slot = quotaSlot(7, 'AWB1');
    expect(answerFrom({ used: 2, awbs: [slot, quotaSlot(7, 'AWB2')] }, slot, 5)).toEqual({ reserved: true, alreadyReserved: true, used: 2, remaining: 3 });
  });

  it('a used-up counter refuses another AWB, and a counter with room leaves the answer to a write', () => {
    expect(answerFrom({ used: 5, awbs: [] }, quotaSlot(7, 'AWB9'), 5)).toEqual({ reserved: false, alreadyReserved: false, used: 5, remaining: 0 });
    expect(answerFrom({ used: 4, awbs: [] }, quotaSlot(7, 'AWB9'), 5)).toBeUndefined();
  });

  it('two accounts’ equal AWB strings are different slots', () => {
    expect(quotaSlot(1, 'AWB1')).not.toBe(quotaSlot(2, 'AWB1'));
  });

  it('an invalid tax id holds no quota', () => {
    expect(holderOrNull('123')).toBeNull();
    expect(() => holderOf('123')).toThrow(RangeError);
  });

  it('a release looks at this year and the last, the history at the last ten', () => {
    expect(releaseYears(at)).toEqual([2026, 2025]);
    expect(historyYearsAt(at)).toEqual([2026, 2025, 2024, 2023, 2022, 2021, 2020, 2019, 2018, 2017]);
  });
});
