import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { getStoredRate, storedExchangeRates } from '#infra/entities/exchange-rates';
import { storedThenOfficial } from '#infra/exchange-rates/port';
import type { ExchangeRates } from '#core/customs/exchange-rate';

const t = useTwin();
const put = (date: string, body: unknown, token?: string) => t.call('PUT', `/v1/admin/exchange-rates/${date}`, { body, token });

describe("the admin's exchange rates", () => {
  it('sets a day\'s rate once (201) and answers it with its source and who set it', async () => {
    const res = await put('2025-03-14', { rate: 1070.5, source: 'BNA divisa vendedor' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ date: '2025-03-14', rate: 1070.5, source: 'BNA divisa vendedor' });
    expect(res.body.data.set_by).toMatch(/^\d+ /);
  });

  it('answers 200 and changes nothing when the same rate is set again', async () => {
    const res = await put('2025-03-14', { rate: 1070.50 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ rate: 1070.5, source: 'BNA divisa vendedor' });
    expect(res.body.message).toContain('nothing changed');
  });

  it('answers 409 naming the rate held when another rate is set for a day already set', async () => {
    const res = await put('2025-03-14', { rate: 1071 });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, error: 'conflict' });
    expect(res.body.message).toContain('1070.5');
  });

  it('defaults the source to operator', async () => {
    const res = await put('2025-03-13', { rate: 1069 });
    expect(res.status).toBe(201);
    expect(res.body.data.source).toBe('operator');
  });

  it('answers 422 naming date for a day that is not YYYY-MM-DD, does not exist or is after today', async () => {
    for (const date of ['2025-02-30', 'yesterday', '2025-3-1', '9999-12-31']) {
      const res = await put(date, { rate: 1000 });
      expect(res.status, date).toBe(422);
      expect(Object.keys(res.body.errors), date).toEqual(['date']);
    }
  });

  it('answers 422 naming rate for zero, a negative, a string, too many decimals or a huge rate', async () => {
    for (const rate of [0, -5, '1000', 1.1234567, 2e6, null]) {
      const res = await put('2025-03-12', { rate });
      expect(res.status, String(rate)).toBe(422);
      expect(Object.keys(res.body.errors), String(rate)).toEqual(['rate']);
    }
  });

  it('answers 422 naming an unknown field, and source when it is empty or has control characters', async () => {
    expect(Object.keys((await put('2025-03-12', { rate: 1000, rat: 1 })).body.errors)).toContain('rat');
    expect(Object.keys((await put('2025-03-12', { rate: 1000, source: '' })).body.errors)).toEqual(['source']);
    expect(Object.keys((await put('2025-03-12', { rate: 1000, source: 'a\u0000b' })).body.errors)).toEqual(['source']);
  });

  it('refuses a partner token', async () => {
    const { token } = await t.account('Rates Partner');
    expect((await put('2025-03-12', { rate: 1000 }, token)).status).toBe(403);
  });

  it('lists the stored days of a range in date order', async () => {
    const res = await t.call('GET', '/v1/admin/exchange-rates?from=2025-03-01&to=2025-03-31');
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { date: string }) => r.date)).toEqual(['2025-03-13', '2025-03-14']);
    expect(res.body.count).toBe(2);
  });

  it('answers 422 naming from or to when missing, malformed, reversed or longer than 366 days', async () => {
    const errorsOf = async (q: string) => Object.keys((await t.call('GET', `/v1/admin/exchange-rates${q}`)).body.errors ?? {});
    expect(await errorsOf('?to=2025-03-31')).toEqual(['from']);
    expect(await errorsOf('?from=2025-03-01&to=march')).toEqual(['to']);
    expect(await errorsOf('?from=2025-03-31&to=2025-03-01')).toEqual(['to']);
    expect(await errorsOf('?from=2024-01-01&to=2025-03-01')).toEqual(['to']);
  });

  it('serves the stored rates through the port: the day set, and missing for another day', async () => {
    expect(await storedExchangeRates.rateFor('2025-03-14')).toEqual({ found: true, rate: { rate: '1070.5', date: '2025-03-14', source: 'BNA divisa vendedor' } });
    expect(await storedExchangeRates.rateFor('2025-03-17')).toMatchObject({ found: false, date: '2025-03-17' });
  });

  it("prefers the stored rate, else stores the official source's once, and keeps its reasons when both miss", async () => {
    const asked: string[] = [];
    const official: ExchangeRates = {
      async rateFor(date) {
        asked.push(date);
        return date === '2025-03-11' ? { found: true, rate: { rate: '1068.25', date, source: 'bcra' } } : { found: false, date, reason: 'No quote.' };
      },
    };
    const rates = storedThenOfficial(official);
    expect(await rates.rateFor('2025-03-14')).toMatchObject({ found: true, rate: { rate: '1070.5', source: 'BNA divisa vendedor' } });
    expect(asked).toEqual([]);
    expect(await rates.rateFor('2025-03-11')).toEqual({ found: true, rate: { rate: '1068.25', date: '2025-03-11', source: 'bcra' } });
    expect(await getStoredRate('2025-03-11')).toMatchObject({ rate: '1068.25', source: 'bcra', setBy: null });
    expect(await rates.rateFor('2025-03-11')).toMatchObject({ found: true });
    expect(asked).toEqual(['2025-03-11']);
    expect(await rates.rateFor('2025-03-10')).toEqual({ found: false, date: '2025-03-10', reason: 'No exchange rate is stored for 2025-03-10. No quote.' });
  });
});
