import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { carrierAccounts } from '#support/orders';

const t = useTwin();

const { fedex, ups, dhl, usps } = carrierAccounts;
const accounts = { fedex, ups, dhl, usps };

const route = {
  origin: { country: 'US', postal_code: '33142', city: 'Miami', state: 'FL' },
  destination: { country: 'AR', postal_code: 'C1043', city: 'Buenos Aires', state: 'CABA' },
  packages: [{ weight: 2, length: 30, width: 20, height: 10 }],
};

async function merchantWith(name: string, carriers: (keyof typeof accounts)[]) {
  const m = await t.account(name);
  for (const c of carriers) expect((await t.call('PUT', `/v1/shipping/carriers/${c}`, { token: m.token, body: accounts[c] })).status).toBe(200);
  return m;
}

describe('shipping quotes', () => {
  it('lists the rates of every connected carrier, cheapest first, with a quote id and a validity', async () => {
    const m = await merchantWith('Tienda Cotiza', ['fedex', 'ups', 'dhl', 'usps']);
    const res = await t.call('POST', '/v1/shipping/quotes', { token: m.token, body: route });
    expect(res.status, res.text).toBe(200);
    const q = res.body.data;
    expect(q.quote_id).toMatch(/^qt_[0-9a-f]{32}$/);
    expect(Date.parse(q.valid_until) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(new Set(q.rates.map((r: { carrier: string }) => r.carrier))).toEqual(new Set(['fedex', 'ups', 'dhl', 'usps']));
    const costs = q.rates.map((r: { shipping_cost: { amount: number } }) => r.shipping_cost.amount);
    expect(costs).toEqual([...costs].sort((a, b) => a - b));
    expect(q.rates.find((r: { carrier: string; service: string }) => r.carrier === 'dhl' && r.service === 'express_worldwide')).toMatchObject({
      service_name: 'EXPRESS WORLDWIDE',
      transit_days: 2,
      delivery_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      shipping_cost: { amount: expect.any(Number), currency: 'USD' },
    });
    expect(q.rates.find((r: { carrier: string }) => r.carrier === 'fedex').service).toMatch(/^international_/);
    expect(q.carrier_errors).toEqual([]);
    expect(q.rates[0]).not.toHaveProperty('duties_and_taxes');
  });

  it('adds the AR duties and taxes and the total landed cost of each rate with include_ddp, cheapest landed first', async () => {
    const m = await merchantWith('Tienda DDP', ['fedex', 'dhl']);
    const res = await t.call('POST', '/v1/shipping/quotes', { token: m.token, body: { ...route, declared_value: 650, description: 'Notebook computer', include_ddp: true } });
    expect(res.status, res.text).toBe(200);
    const rates = res.body.data.rates;
    expect(rates.length).toBeGreaterThanOrEqual(4);
    for (const r of rates) {
      expect(r.duties_and_taxes).toMatchObject({ ddp_value: r.total_landed_cost, amount_to_pay: expect.any(Number) });
      // The landed cost counts the rate as freight: the declared value, the freight and what customs takes.
      expect(r.total_landed_cost).toBeGreaterThan(650 + r.shipping_cost.amount - 0.01);
    }
    const landed = rates.map((r: { total_landed_cost: number }) => r.total_landed_cost);
    expect(landed).toEqual([...landed].sort((a, b) => a - b));
    const calc = await t.call('POST', '/v1/customs/calculate', { body: { destination_country: 'AR', origin_country: 'US', declared_value: 650, description: 'Notebook computer', weight: 2, freight: rates[0].shipping_cost.amount } });
    expect(calc.status, calc.text).toBe(200);
    expect(rates[0].total_landed_cost).toBe(calc.body.data.total_landed_cost);
  });

  it('lists a carrier that fails with its error while the others still answer', async () => {
    const m = await merchantWith('Tienda Parcial', ['fedex', 'ups', 'dhl']);
    const before = t.twin.carriers.requests.filter((r) => r.carrier === 'ups' && r.path === '/api/rating/v2409/Shop').length;
    for (let i = 1; i <= 4; i++) t.twin.carriers.failOn('ups', before + i, 500, '/api/rating/v2409/Shop');
    const res = await t.call('POST', '/v1/shipping/quotes', { token: m.token, body: { ...route, carriers: ['fedex', 'ups', 'dhl', 'usps'] } });
    expect(res.status, res.text).toBe(200);
    const q = res.body.data;
    expect(new Set(q.rates.map((r: { carrier: string }) => r.carrier))).toEqual(new Set(['fedex', 'dhl']));
    expect(q.carrier_errors).toEqual(
      expect.arrayContaining([
        { carrier: 'ups', status: 502, error: 'bad_gateway', message: expect.stringMatching(/UPS failed \(500, 4 attempts\)/) },
        { carrier: 'usps', status: 422, error: 'validation_failed', message: expect.stringMatching(/No usps account is connected/) },
      ]),
    );
  });

  it('takes pounds and inches, and sends each carrier its own units', async () => {
    const m = await merchantWith('Tienda Libras', ['dhl', 'usps']);
    const res = await t.call('POST', '/v1/shipping/quotes', { token: m.token, body: { ...route, packages: [{ weight: 4.4, length: 12, width: 8, height: 4, weight_unit: 'lb', dimension_unit: 'in' }] } });
    expect(res.status, res.text).toBe(200);
    const dhl = [...t.twin.carriers.requests].reverse().find((r) => r.carrier === 'dhl' && r.path === '/rates')!.body as any;
    // 4.4 lb = 1.996 kg -> 2.0 kg; 12 in = 30.48 cm -> 31 cm; USPS gets pounds and inches back unchanged.
    expect(dhl.packages).toEqual([{ weight: 2, dimensions: { length: 31, width: 21, height: 11 } }]);
    const usps = [...t.twin.carriers.requests].reverse().find((r) => r.carrier === 'usps' && r.path === '/international-prices/v3/base-rates/search')!.body as any;
    expect(usps).toMatchObject({ weight: 4.4, length: 12, width: 8, height: 4, destinationCountryCode: 'AR' });
  });

  it('refuses bad input with 422 naming the field', async () => {
    const m = await merchantWith('Tienda Hostil Cotiza', ['dhl']);
    const post = (body: unknown) => t.call('POST', '/v1/shipping/quotes', { token: m.token, body });
    expect((await post({ ...route, packages: [] })).body.errors['packages']).toBeTruthy();
    expect((await post({ ...route, packages: [{ weight: -1, length: 1, width: 1, height: 1 }] })).body.errors['packages.0.weight']).toBeTruthy();
    expect((await post({ ...route, packages: [{ weight: 1, length: 1, width: 1, height: 1, weight_unit: 'stone' }] })).body.errors['packages.0.weight_unit']).toBeTruthy();
    expect((await post({ ...route, destination: { ...route.destination, country: 'Argentina' } })).body.errors['destination.country']).toBeTruthy();
    expect((await post({ ...route, carriers: ['despacho'] })).body.errors['carriers.0']).toBeTruthy();
    expect((await post({ ...route, include_ddp: true, description: 'Notebook' })).body.errors.declared_value[0]).toMatch(/declared value/);
    expect((await post({ ...route, include_ddp: true, declared_value: 10 })).body.errors.hs_code[0]).toMatch(/hs_code or description/);
    expect((await post({ ...route, currency: 'EUR' })).status).toBe(422);
    expect((await post({ ...route, extra: 1 })).status).toBe(422);
    const none = await t.account('Tienda Sin Carriers');
    const empty = await t.call('POST', '/v1/shipping/quotes', { token: none.token, body: route });
    expect(empty.status).toBe(422);
    expect(empty.body.errors.carriers[0]).toMatch(/No carrier account is connected/);
  });
});
