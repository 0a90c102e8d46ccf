import { beforeAll, describe, expect, it } from 'vitest';
import { useManualClock } from '#support/clock';
import { useTwin } from '#support/twin';

const t = useTwin();
// A still clock keeps the rate-limit test's calls in one minute window whatever the wall clock does.
const clock = useManualClock('2026-11-20T10:00:05Z');

const path = '/v1/customs/calculate';
const notebook = { destination_country: 'AR', declared_value: 650, weight: 2.1, description: 'Notebook Lenovo 15 pulgadas' };

let token: string;
beforeAll(async () => {
  token = (await t.account('Quotes Partner', { scopes: ['customs:read'] })).token;
});
const quote = (body: unknown, as = token) => t.call('POST', path, { token: as, body });

describe('POST /v1/customs/calculate', () => {
  it('answers a personal quote with its values, duties and taxes, landed cost, tariff code and rules', async () => {
    const res = await quote(notebook);
    expect(res.status).toBe(200);
    const q = res.body.data;
    expect(q.calculation_id).toMatch(/^calc_[0-9a-f]{32}$/);
    expect(q).toMatchObject({
      destination_country: 'AR',
      origin_country: 'US',
      quantity: 1,
      regime_requested: 'auto',
      regime_used: 'P',
      regime_name: 'personal',
      // 2.1 kg x 5.00 = 10.50 freight; 1% of 650.00 = 6.50 insurance
      values: { declared_value: 650, fob: 650, freight: 10.5, insurance: 6.5, cif: 667, currency: 'USD' },
      // duty base 667.00 x 250 / 650 = 256.54; fee 3% = 7.70; VAT 21% of 674.70 = 141.69
      duties_and_taxes: { franchise_usd_applied: 400, duty_base: 256.54, statistics_fee: 7.7, vat: 141.69, ddp_value: 816.39, amount_to_pay: 149.39 },
      total_landed_cost: 816.39,
      ncm: { code: '8471.30.12', source: 'offline' },
      rules: { effective_from: '2024-12-03', regime_rules_effective_from: '2025-01-23' },
      calculated_at: '2026-11-20T10:00:05.000Z',
    });
    expect(q.duties_and_taxes.explanation).toContain('CIF 667.00 = FOB 650.00 + freight 10.50 + insurance 6.50');
    expect(q.regimes).toBeUndefined();
  });

  it('gives the same calculation_id to the same quote, and another to another', async () => {
    const a = await quote(notebook);
    const b = await quote({ ...notebook, currency: 'usd', destination_country: 'ar' });
    const c = await quote({ ...notebook, declared_value: 651 });
    expect(b.body.data.calculation_id).toBe(a.body.data.calculation_id);
    expect(c.body.data.calculation_id).not.toBe(a.body.data.calculation_id);
  });

  it('classifies by description when no code is given, answering the source and the confidence', async () => {
    const byText = (await quote({ destination_country: 'AR', declared_value: 35, description: 'Wireless bluetooth earbuds' })).body.data;
    expect(byText.ncm).toMatchObject({ code: expect.stringMatching(/^8518\.30\./), source: 'offline' });
    expect(byText.ncm.confidence).toBeGreaterThan(0.6);
    expect(byText.ncm.reason).toEqual(expect.any(String));
    const byCode = (await quote({ destination_country: 'AR', declared_value: 12.5, hs_code: '6109.10.00' })).body.data;
    expect(byCode.ncm).toMatchObject({ code: '6109.10.00', source: 'partner', confidence: 1, duty_rate: 35 });
    const refused = (await quote({ destination_country: 'AR', declared_value: 45, hs_code: '12', description: 'Auriculares inalámbricos' })).body.data;
    expect(refused.ncm.source).toBe('offline');
    expect(refused.ncm.reason).toMatch(/12/);
  });

  it('compares the regimes, each with its difference from the one used', async () => {
    const q = (await quote({ ...notebook, compare_regimes: true })).body.data;
    expect(q.regimes.map((r: { regime: string }) => r.regime)).toEqual(['P', 'C']);
    const [personal, commercial] = q.regimes;
    expect(personal).toMatchObject({ regime_name: 'personal', total_landed_cost: 816.39, difference: 0 });
    expect(personal.duties_and_taxes).toEqual(q.duties_and_taxes);
    // Commercial: duty base is the whole CIF 667.00; fee 20.01; VAT 21% of 687.01 = 144.27; DDP 831.28
    expect(commercial).toMatchObject({ regime_name: 'commercial', total_landed_cost: 831.28, difference: 14.89 });
    expect(commercial.duties_and_taxes.explanation).toContain('commercial shipment: duty base = CIF 667.00');
    const asCommercial = (await quote({ ...notebook, regime: 'commercial', compare_regimes: true })).body.data;
    expect(asCommercial).toMatchObject({ regime_used: 'C', total_landed_cost: 831.28 });
    expect(asCommercial.regimes.map((r: { difference: number }) => r.difference)).toEqual([-14.89, 0]);
  });

  it('uses the regime asked for, and says when the rules alone would choose another', async () => {
    const four = { destination_country: 'AR', declared_value: 40, weight: 0.4, description: 'Funda de silicona para celular', quantity: 4 };
    expect((await quote(four)).body.data.regime_used).toBe('C');
    const forced = (await quote({ ...four, regime: 'personal' })).body.data;
    expect(forced.regime_used).toBe('P');
    expect(forced.regime_reasons[0]).toBe('personal as requested; the regime rules alone would make it commercial');
  });

  it('answers goods that cannot clear as prohibited with every amount 0, whatever regime is asked', async () => {
    const gun = (await quote({ destination_country: 'AR', declared_value: 80, description: 'Pistola de aire comprimido 9mm', regime: 'commercial', compare_regimes: true })).body.data;
    expect(gun).toMatchObject({ regime_used: 'X', regime_name: 'prohibited', total_landed_cost: 0, regimes: [] });
    expect(gun.duties_and_taxes.explanation[0]).toBe('prohibited: not cleared');
    const over = (await quote({ destination_country: 'AR', declared_value: 3500, description: 'Notebook gamer' })).body.data;
    expect(over.regime_used).toBe('X');
    expect(over.regime_reasons[0]).toMatch(/over the courier limit of USD 3,000.00/);
  });

  it('takes a declared freight and insurance in place of the defaults', async () => {
    const q = (await quote({ ...notebook, freight: 30, insurance: 0 })).body.data;
    expect(q.values).toMatchObject({ freight: 30, insurance: 0, cif: 680 });
    expect(q.duties_and_taxes.explanation).toContain('freight 30.00: shipment freight 30.00 as declared (2.1 kg chargeable), split by chargeable weight (this product 2.1 kg)');
  });

  it('refuses a destination other than AR with a 422 naming destination_country', async () => {
    const res = await quote({ ...notebook, destination_country: 'BR' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ destination_country: ['Only AR (Argentina) is supported as the destination country; BR is not.'] });
    expect((await quote({ ...notebook, destination_country: 'Argentina' })).body.errors.destination_country[0]).toMatch(/ISO 3166-1 alpha-2/);
    expect((await quote({ ...notebook, destination_country: undefined })).body.errors).toEqual({ destination_country: ['Required.'] });
  });

  it('refuses a currency other than USD with a 422 naming currency', async () => {
    const res = await quote({ ...notebook, currency: 'EUR' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ currency: ['Only USD is supported until exchange rates exist; EUR is not.'] });
  });

  it('refuses a quote without declared_value with a 422 naming it', async () => {
    const res = await quote({ ...notebook, declared_value: undefined });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ declared_value: ['Required.'] });
  });

  it('refuses a quote with neither hs_code nor description with a 422 naming hs_code', async () => {
    const res = await quote({ destination_country: 'AR', declared_value: 10, description: '  ' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ hs_code: ['Send hs_code or description (or both): without a code, the tariff code is classified from the description.'] });
  });

  it('refuses bad numbers with a 422 naming each field', async () => {
    const res = await quote({ ...notebook, declared_value: '650', weight: -1, freight: -0.01, insurance: 'ten', quantity: 1.5 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      declared_value: ['Must be a number (not text).'],
      weight: ['Must not be negative.'],
      freight: ['Must not be negative.'],
      insurance: ['Must be a number (not text).'],
      quantity: ['Must be a whole number.'],
    });
    expect((await quote({ ...notebook, declared_value: 0 })).body.errors).toEqual({ declared_value: ['Must be greater than 0.'] });
    expect((await quote({ ...notebook, quantity: 0 })).body.errors).toEqual({ quantity: ['Must be at least 1.'] });
    expect((await quote({ ...notebook, regime: 'business' })).body.errors).toEqual({ regime: ['Must be one of auto, personal, commercial.'] });
    expect((await quote({ ...notebook, compare_regimes: 'yes' })).body.errors).toEqual({ compare_regimes: ['Must be true or false.'] });
    const huge = await t.call('POST', path, { token, raw: '{"destination_country":"AR","declared_value":1e400,"description":"x"}', headers: { 'content-type': 'application/json' } });
    expect(huge.status).toBe(422);
    expect(Object.keys(huge.body.errors)).toEqual(['declared_value']);
  });

  it('answers 403 to a token without customs:read', async () => {
    const orders = await t.account('Orders Only', { scopes: ['orders:read', 'orders:write'] });
    const writeOnly = await t.account('Manifests Only', { scopes: ['manifests:read', 'manifests:write'] });
    for (const as of [orders.token, writeOnly.token]) {
      const res = await quote(notebook, as);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: 'forbidden', message: 'This action needs the customs:read scope.' });
    }
    expect((await quote(notebook, null as unknown as string)).status).toBe(401);
  });

  it('answers the 31st quote in a minute with 429 and retry_after (30 a minute per token)', async () => {
    const { token: busy } = await t.account('Busy Quoter', { scopes: ['customs:read'] });
    for (let i = 1; i <= 30; i++) {
      const res = await quote(notebook, busy);
      expect(res.status, `quote ${i}`).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    }
    const res = await quote(notebook, busy);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ success: false, error: 'rate_limited', message: 'Rate limit of 30 requests per minute exceeded; retry in 55 s.', retry_after: 55 });
    expect(res.headers.get('retry-after')).toBe('55');
    clock.advance(60_000);
    expect((await quote(notebook, busy)).status).toBe(200);
  });
});
