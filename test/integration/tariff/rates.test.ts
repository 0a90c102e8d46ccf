import { beforeAll, describe, expect, it } from 'vitest';
import { useManualClock } from '#support/clock';
import { calibration } from '#core/tariff/calibration';
import { useTwin } from '#support/twin';

const t = useTwin();
const clock = useManualClock('2026-11-20T10:00:05Z');

let token: string;
beforeAll(async () => {
  token = (await t.account('Rates Partner', { scopes: ['customs:read'] })).token;
});
const quote = async (body: Record<string, unknown>) => {
  const res = await t.call('POST', '/v1/customs/calculate', { token, body: { destination_country: 'AR', ...body } });
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('a quote says which rates were verified', () => {
  it('classifies goods beyond the table through the HS tier, with an estimated duty marked unverified', async () => {
    const q = await quote({ declared_value: 30, weight: 1, description: 'Aceite de oliva extra virgen 500ml', regime: 'commercial' });
    expect(q.ncm).toMatchObject({ code: '1509.20', source: 'hs-fallback', vat_rate: 21 });
    expect(q.ncm.confidence).toBeLessThan(calibration.review_below);
    expect(q.ncm.rates).toMatchObject({
      verified: false,
      duty: { rate: q.ncm.duty_rate, status: 'unverified', source: 'estimate' },
      statistics_fee: { rate: 3, status: 'verified' },
      vat: { rate: 21, status: 'unverified' },
    });
    expect(q.duties_and_taxes.duty_rate).toBe(q.ncm.duty_rate);
  });

  it('charges a book no VAT (exempt), saying the exemption is unverified', async () => {
    const q = await quote({ declared_value: 25, weight: 0.5, hs_code: '4901.99.00', regime: 'commercial' });
    expect(q.ncm).toMatchObject({ code: '4901.99.00', source: 'partner', vat_rate: 0 });
    expect(q.ncm.rates.vat).toMatchObject({ rate: 0, status: 'unverified' });
    expect(q.duties_and_taxes).toMatchObject({ vat_rate: 0, vat: 0 });
    expect(q.duties_and_taxes.explanation).toEqual(expect.arrayContaining([expect.stringMatching(/^VAT 0\.00 = 0% \(VAT-exempt NCM\)/)]));
  });

  it('cites the VAT and statistics fee of apparel and marks the built-in duty unverified', async () => {
    const q = await quote({ declared_value: 12.5, weight: 0.3, hs_code: '6109.10.00' });
    expect(q.ncm.rates).toMatchObject({
      verified: false,
      duty: { rate: 35, status: 'unverified', source: 'built-in estimate' },
      statistics_fee: { status: 'verified', source: expect.stringMatching(/Decreto 1140\/2024/), read: '2026-11-24' },
      vat: { rate: 21, status: 'verified', source: expect.stringMatching(/art\. 28/) },
    });
  });
});
