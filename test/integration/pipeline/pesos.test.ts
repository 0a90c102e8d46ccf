import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { freshCuil, item, manifest, submitForBatch } from '#support/manifests';
import { productPesoKeys, rateDayFor, usdToArs } from '#core/customs/exchange-rate';
import { toCents, toNumber } from '#core/customs/money';
import { pesosWaitsOn } from '#infra/entities/pesos-waits';

/**
 * Amounts in pesos (issue 44): the run reads the rate of the business day before the day it is
 * prepared (the twin's rates are the stored ones), and its products and summary carry pesos beside
 * dollars, or wait for the rate with the reason. The rate day is today's (the run is prepared now).
 */
const t = useTwin();
const rateDay = rateDayFor(new Date());
const rate = '1234.56';
const ars = (usd: number) => toNumber(usdToArs(toCents(usd), rate));

const productsFor = () => [
  item(1, { itemDescription: 'Cotton t-shirt', hsCode: undefined, fobValueUsd: 20.37, consigneeIdNumber: freshCuil() }),
  item(2, { awbNumber: 'AWB0000001', itemIdempotencyKey: 'line-2', itemDescription: 'Wireless bluetooth earbuds', hsCode: undefined, fobValueUsd: 35.99 }),
  item(4, { itemDescription: 'Smartphone Xiaomi Redmi Note 13 128GB', hsCode: undefined, fobValueUsd: 250.01, consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' }),
];

async function processed(name: string) {
  const { token } = await t.account(name);
  const batchId = await submitForBatch(t, token, manifest(0, { items: productsFor() }));
  await t.settle();
  const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
  const download = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
  expect(status.status).toBe(200);
  expect(download.status).toBe(200);
  return { token, batchId, status: status.body.data, download: download.body.data };
}

/** The CSV download as objects keyed by its header. */
async function csvRows(token: string, batchId: string): Promise<Record<string, string>[]> {
  const res = await fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=csv`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  // The products' cells here have no commas or quotes (the reasons column is last but one and is left out).
  const [header, ...lines] = (await res.text()).split('\r\n').filter(Boolean);
  const names = header.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').slice(0, names.indexOf('reasons')).map((v, k) => [names[k], v])));
}

/** Every product's and the summary's pesos agree with their dollars at the rate shown. */
function expectPesosAgree(status: any, download: any, shown: { rate: number; date: string; source: string }) {
  expect(status.summary.exchange_rate).toEqual(shown);
  expect(status.summary.pesos_pending).toBeUndefined();
  expect(status.summary.amount_to_pay_ars).toBe(ars(status.summary.amount_to_pay));
  expect(download.manifest.summary.amount_to_pay_ars).toBe(ars(download.manifest.summary.amount_to_pay));
  expect(download.products.length).toBe(3);
  for (const p of download.products) {
    expect(p.exchange_rate).toEqual(shown);
    for (const k of productPesoKeys) {
      expect(typeof p[k], k).toBe('number');
      expect(p[`${k}_ars`], k).toBe(ars(p[k]));
    }
  }
}

let waiting: { token: string; batchId: string } | undefined;

describe('amounts in pesos on a processed batch', () => {
  it('completes the dollars of a batch processed without a rate and leaves its pesos waiting, with the day and the reason', async () => {
    const { token, batchId, status, download } = await processed('Pesos Waiting Couriers');
    waiting = { token, batchId };
    expect(status.status).toBe('completed');
    expect(status.summary).toMatchObject({ amount_to_pay_ars: null, exchange_rate: null, pesos_pending: { date: rateDay } });
    expect(status.summary.pesos_pending.reason).toContain(`PUT /v1/admin/exchange-rates/${rateDay}`);
    expect(download.manifest.summary).toMatchObject({ amount_to_pay_ars: null, exchange_rate: null, pesos_pending: { date: rateDay } });
    for (const p of download.products) {
      expect(typeof p.amount_to_pay).toBe('number');
      expect(p.exchange_rate).toBeNull();
      for (const k of productPesoKeys) expect(p[`${k}_ars`], k).toBeNull();
    }
  });

  it("gives every product and the summary pesos that agree with their dollars to the centavo at the day's rate set by the admin", async () => {
    const set = await t.call('PUT', `/v1/admin/exchange-rates/${rateDay}`, { body: { rate: Number(rate), source: 'BNA divisa vendedor' } });
    expect(set.status).toBe(201);
    const { token, batchId, status, download } = await processed('Pesos Couriers');
    const shown = { rate: Number(rate), date: rateDay, source: 'BNA divisa vendedor' };
    expectPesosAgree(status, download, shown);
    const csv = await csvRows(token, batchId);
    expect(csv.length).toBe(3);
    for (const row of csv) {
      expect(row).toMatchObject({ exchange_rate: rate, exchange_rate_date: rateDay, exchange_rate_source: 'BNA divisa vendedor' });
      for (const k of productPesoKeys) expect(Number(row[`${k}_ars`]), k).toBe(ars(Number(row[k])));
    }
  });

  it("converts a broker's correction at the product's rate, and the summary's new total at the summary's rate", async () => {
    const { token } = await t.account('Pesos Review Couriers');
    const broker = await t.account('Pesos Broker', { kind: 'broker' });
    const batchId = await submitForBatch(t, token, manifest(0, { items: productsFor() }));
    await t.settle();
    const put = await t.call('PUT', `/v1/couriers/manifests/${batchId}/products/AWB0000004/classification`, {
      token: broker.token,
      body: { ncm_code: '4202.92.00', reason: 'Per the invoice' },
    });
    expect(put.status).toBe(200);
    const status = (await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data;
    const download = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token })).body.data;
    expect(download.products.find((p: { awb_number: string }) => p.awb_number === 'AWB0000004').ncm_code).toBe('4202.92.00');
    expectPesosAgree(status, download, { rate: Number(rate), date: rateDay, source: 'BNA divisa vendedor' });
  });

  it('completes the pesos of the batch that waited once the rate of its day is set, at that rate', async () => {
    // The rate set in the test before handed the waiting batch to the pipeline; settle waits for that run.
    await t.settle();
    const { token, batchId } = waiting!;
    const status = (await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data;
    const download = (await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token })).body.data;
    expect(status.status).toBe('completed');
    expectPesosAgree(status, download, { rate: Number(rate), date: rateDay, source: 'BNA divisa vendedor' });
    // It no longer waits: setting the same rate again hands nothing over.
    expect((await pesosWaitsOn(rateDay)).map((w) => w.batchId)).not.toContain(batchId);
  });
});
