import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { freshCuil, item, manifest, submitForBatch } from '#support/manifests';
import { rateDayFor, usdToArs, type ExchangeRates } from '#core/customs/exchange-rate';
import { toCents, toNumber } from '#core/customs/money';
import { storedThenOfficial } from '#infra/exchange-rates/port';
import { pesosWaitsOn } from '#infra/entities/pesos-waits';

/**
 * A batch that completed before the official source published its day's rate (issue 44 item 2):
 * in a deployed stage the rates are the stored ones, then the BCRA's (lambdas/infra/exchange-rates/port.ts).
 * The next reader that fetches and stores the day's rate (a later batch's finish) asks for the
 * waiting batches' pesos, as an operator's PUT does; nobody has to set it by hand.
 */
const t = useTwin();
const rateDay = rateDayFor(new Date());

describe('a rate the official source publishes after a batch completed', () => {
  it("completes that batch's pesos once a later reader fetches the day's rate, and only once", async () => {
    const { token } = await t.account('Late Rate Couriers');
    const batchId = await submitForBatch(t, token, manifest(0, { items: [item(1, { itemDescription: 'Cotton t-shirt', fobValueUsd: 20.37, consigneeIdNumber: freshCuil() })] }));
    await t.settle();
    const before = (await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data;
    expect(before.summary.pesos_pending).toMatchObject({ date: rateDay });

    let asked = 0;
    const official: ExchangeRates = {
      async rateFor(date) {
        asked++;
        return { found: true, rate: { rate: '1250.75', date, source: 'bcra' } };
      },
    };
    const rates = storedThenOfficial(official);
    expect(await rates.rateFor(rateDay)).toMatchObject({ found: true, rate: { rate: '1250.75' } });
    await t.settle();
    const after = (await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data;
    expect(after.summary.pesos_pending).toBeUndefined();
    expect(after.summary.exchange_rate).toEqual({ rate: 1250.75, date: rateDay, source: 'bcra' });
    expect(after.summary.amount_to_pay_ars).toBe(toNumber(usdToArs(toCents(after.summary.amount_to_pay), '1250.75')));
    expect(await pesosWaitsOn(rateDay)).toEqual([]);
    // Stored now: the next reader takes the stored rate without asking the source again.
    await rates.rateFor(rateDay);
    expect(asked).toBe(1);
  });
});
