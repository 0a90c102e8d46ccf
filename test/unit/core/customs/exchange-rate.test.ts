import { describe, expect, it } from 'vitest';
import {
  argentineDateOf,
  breakdownPesoKeys,
  inPesos,
  productInPesos,
  productPesoKeys,
  rateOfShown,
  summaryInPesos,
  totalsPesoKeys,
  easterHolidays,
  easterSunday,
  isBusinessDay,
  missingRateReason,
  parseRate,
  rateDayFor,
  usdToArs,
} from '#core/customs/exchange-rate';
import { formatCents, toCents } from '#core/customs/money';

describe('which day the rate is of', () => {
  it('takes the previous day for a batch processed on a Wednesday', () => {
    expect(rateDayFor('2025-03-12')).toBe('2025-03-11');
  });

  it("takes Friday's rate for a batch processed on Monday", () => {
    expect(rateDayFor('2025-03-17')).toBe('2025-03-14');
  });

  it("takes Friday's rate for a batch processed on Saturday or Sunday", () => {
    expect(rateDayFor('2025-03-15')).toBe('2025-03-14');
    expect(rateDayFor('2025-03-16')).toBe('2025-03-14');
  });

  it('reads an instant on the Argentine calendar (UTC-3), so 02:00 UTC on Tuesday is still Monday', () => {
    expect(argentineDateOf('2025-03-18T02:00:00Z')).toBe('2025-03-17');
    expect(rateDayFor(new Date('2025-03-18T02:00:00Z'))).toBe('2025-03-14');
    expect(rateDayFor(new Date('2025-03-18T03:00:00Z'))).toBe('2025-03-17');
  });

  it('skips a fixed national holiday: the day after 25 May 2026 (a Monday) takes Friday 22 May', () => {
    expect(isBusinessDay('2026-05-25')).toBe(false);
    expect(rateDayFor('2026-05-26')).toBe('2026-05-22');
  });

  it('skips Carnival and Good Friday, computed from Easter', () => {
    expect(easterSunday(2025)).toBe('2025-04-20');
    expect(easterSunday(2026)).toBe('2026-04-05');
    expect(easterHolidays(2025)).toEqual(['2025-03-03', '2025-03-04', '2025-04-18']);
    expect(rateDayFor('2025-03-05')).toBe('2025-02-28');
    expect(rateDayFor('2025-04-21')).toBe('2025-04-17');
  });

  it("skips a holiday the caller adds (a movable one fixed by decree) when it is given", () => {
    expect(rateDayFor('2025-06-17')).toBe('2025-06-16');
    expect(rateDayFor('2025-06-17', ['2025-06-16'])).toBe('2025-06-13');
  });

  it('refuses a date that is not a calendar date', () => {
    expect(() => rateDayFor('2025-02-30')).toThrow(RangeError);
    expect(() => rateDayFor('yesterday')).toThrow(RangeError);
  });
});

describe('dollars to pesos', () => {
  it('rounds to the centavo, half up: 19.99 USD at 1370.25 is 27391.30 ARS (27391.2975)', () => {
    expect(formatCents(usdToArs(toCents(19.99), '1370.25'))).toBe('27391.30');
  });

  it('rounds a half centavo up: 0.01 USD at 0.5 is 0.01 ARS, at 0.4999 is 0.00', () => {
    expect(usdToArs(1n, '0.5')).toBe(1n);
    expect(usdToArs(1n, '0.4999')).toBe(0n);
  });

  it('is exact for a whole rate: 100.00 USD at 1370 is 137000.00 ARS', () => {
    expect(usdToArs(10000n, '1370')).toBe(13700000n);
  });

  it('keeps a rate with six decimals exact: 1234.56 USD at 1043.123456 is 1287798.49 ARS', () => {
    // 123456 x 1043.123456 = 128779849.3839... cents, rounded down
    expect(formatCents(usdToArs(123456n, '1043.123456'))).toBe('1287798.49');
  });

  it('gives 0 pesos for 0 dollars', () => {
    expect(usdToArs(0n, '1370.5')).toBe(0n);
  });
});

describe('a rate as given', () => {
  it('accepts a positive number and writes it as exact decimal text', () => {
    expect(parseRate(1370.5)).toEqual({ ok: true, rate: '1370.5' });
    expect(parseRate('1370.50')).toEqual({ ok: true, rate: '1370.5' });
  });

  it('refuses zero, a negative rate, more than 6 decimals, a huge rate and what is not a number', () => {
    expect(parseRate(0)).toMatchObject({ ok: false });
    expect(parseRate(-1)).toMatchObject({ ok: false });
    expect(parseRate('1.1234567')).toMatchObject({ ok: false, reason: 'Must have at most 6 decimals.' });
    expect(parseRate(1e7)).toMatchObject({ ok: false, reason: 'Must be at most 1000000.' });
    expect(parseRate('abc')).toMatchObject({ ok: false, reason: 'Must be a number.' });
    expect(parseRate(null)).toMatchObject({ ok: false, reason: 'Must be a number.' });
    expect(parseRate(Number.NaN)).toMatchObject({ ok: false, reason: 'Must be a number.' });
  });

  it('names the day and the route in the reason a batch waits', () => {
    expect(missingRateReason('2025-03-14')).toContain('PUT /v1/admin/exchange-rates/2025-03-14');
  });
});

describe('amounts in pesos beside dollars', () => {
  const rate = { rate: '1070.5', date: '2025-03-14', source: 'BNA divisa vendedor' };

  it('converts every amount of a shipment to pesos that agree with its dollars to the centavo at the rate', () => {
    const totals = { fob: 600, freight: 10, insurance: 6, cif: 616, customs_duty: 21.33, statistics_fee: 3.2, vat: 134.51, ddp: 775.04, amount_to_pay: 159.04 };
    const ars = inPesos(totals, totalsPesoKeys, rate);
    for (const k of totalsPesoKeys) {
      // cents x 1070.5, half up: redone here with integers only.
      const cents = toCents(totals[k]);
      const expected = (cents * 10705n + 5n) / 10n;
      expect(ars[`${k}_ars`], k).toBe(Number(formatCents(expected)));
    }
    expect(ars.cif_ars).toBe(659428);
    expect(ars.customs_duty_ars).toBe(22833.77);
    expect(ars.exchange_rate).toEqual({ rate: 1070.5, date: '2025-03-14', source: 'BNA divisa vendedor' });
  });

  it("names every pesos field of a product's breakdown <amount>_ars", () => {
    const b = Object.fromEntries(breakdownPesoKeys.map((k) => [k, 1.01])) as Record<(typeof breakdownPesoKeys)[number], number>;
    const ars = inPesos(b, breakdownPesoKeys, rate);
    expect(Object.keys(ars).sort()).toEqual([...breakdownPesoKeys.map((k) => `${k}_ars`), 'exchange_rate'].sort());
    // 1.01 x 1070.5 = 1081.205 -> 1081.21 (half up)
    expect(ars.amount_to_pay_ars).toBe(1081.21);
  });

  it('refuses an amount with more than 2 decimals instead of rounding it twice', () => {
    expect(() => inPesos({ fob: 1.005 }, ['fob'], rate)).toThrow(RangeError);
  });
});

describe("a processed product's and a batch summary's pesos", () => {
  const rate = { rate: '1070.5', date: '2025-03-14', source: 'operator' };

  it('gives every amount of a product in pesos at the rate, null where the dollars are null, with the rate shown', () => {
    const ars = productInPesos({ fob_value: 20, cif_value: 23.99, customs_duty: null, statistics_fee: 0, vat: 5.04, ddp_value: 29.03, amount_to_pay: 1.01 }, rate);
    expect(Object.keys(ars).sort()).toEqual([...productPesoKeys.map((k) => `${k}_ars`), 'exchange_rate'].sort());
    expect(ars).toMatchObject({ fob_value_ars: 21410, cif_value_ars: 25681.3, customs_duty_ars: null, statistics_fee_ars: 0, amount_to_pay_ars: 1081.21 });
    expect(ars.exchange_rate).toEqual({ rate: 1070.5, date: '2025-03-14', source: 'operator' });
  });

  it('gives every pesos amount and the rate as null when there is no rate, never a guess', () => {
    const ars = productInPesos({ amount_to_pay: 10 }, null);
    expect(Object.values(ars).every((x) => x === null)).toBe(true);
  });

  it('converts the summary total once and says why it waits when the rate is missing', () => {
    expect(summaryInPesos(101n, { found: true, rate })).toEqual({ amount_to_pay_ars: 1081.21, exchange_rate: { rate: 1070.5, date: '2025-03-14', source: 'operator' } });
    const waiting = summaryInPesos(101n, { found: false, date: '2025-03-14', reason: 'No exchange rate is stored for 2025-03-14.' });
    expect(waiting).toEqual({
      amount_to_pay_ars: null,
      exchange_rate: null,
      pesos_pending: { date: '2025-03-14', reason: missingRateReason('2025-03-14'), cause: 'No exchange rate is stored for 2025-03-14.' },
    });
  });

  it('reads a shown rate back as the same decimal text', () => {
    expect(rateOfShown({ rate: 1234.123456, date: '2025-03-14', source: 'bcra' }).rate).toBe('1234.123456');
  });
});
