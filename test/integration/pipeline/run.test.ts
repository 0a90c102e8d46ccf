import { beforeEach, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { freshCuil, item, manifest, submitForBatch, submitPath } from '#support/manifests';
import { useEvents, type DomainEvent } from '#infra/events';

const t = useTwin();
const seen: DomainEvent[] = [];
beforeEach(() => {
  seen.length = 0;
  useEvents({ publish: async (events) => (seen.push(...events), t.twin.jobs.publish(events)) });
});

const productsFor = () => [
  item(1, { itemDescription: 'Cotton t-shirt', hsCode: undefined, fobValueUsd: 20, consigneeIdNumber: freshCuil() }),
  item(2, { awbNumber: 'AWB0000001', itemIdempotencyKey: 'line-2', itemDescription: 'Wireless bluetooth earbuds', hsCode: undefined, fobValueUsd: 35 }),
  item(3, { itemDescription: 'Pistola de aire comprimido 9mm', hsCode: undefined, fobValueUsd: 80, consigneeIdNumber: '20123456780' }),
  item(4, { itemDescription: 'Smartphone Xiaomi Redmi Note 13 128GB', hsCode: undefined, fobValueUsd: 250, consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' }),
];

describe('the manifest pipeline on the twin', () => {
  it('takes a submitted manifest through the four stages to completed at 100%', async () => {
    const { token } = await t.account('Pipeline Couriers');
    const batchId = await submitForBatch(t, token, manifest(0, { items: productsFor() }));
    await t.settle();
    const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ batch_id: batchId, status: 'completed', overall_progress: 100 });
    expect(status.body.data.pipeline_steps.map((s: { key: string; status: string; progress: number }) => [s.key, s.status, s.progress])).toEqual([
      ['classification', 'completed', 100],
      ['webservices', 'completed', 100],
      ['ai', 'completed', 100],
      ['calculations', 'completed', 100],
    ]);
    expect(status.body.data.summary).toMatchObject({ total_products: 4, regime_breakdown: { personal: 2, commercial: 1, prohibited: 1 } });
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data[0]).toMatchObject({ status: 'completed', progress: 100, summary: { total_awbs: 3, total_articles: 4, personal_items: 2, commercial_items: 1, prohibited_items: 1, currency: 'USD' } });
    expect(list.body.data[0].summary.amount_to_pay).toBeGreaterThan(0);
    const batch = await t.call('POST', '/v1/couriers/manifests/batch-status', { token, body: { manifests: [batchId] } });
    expect(batch.body.data[0]).toMatchObject({ status: 'completed', progress: 100, can_download: true });
  });

  it('gives every product regime, tax-id result, quota, ncm_code, CIF, duty, DDP and channel', async () => {
    const { token } = await t.account('Results Couriers');
    const batchId = await submitForBatch(t, token, manifest(0, { items: productsFor() }));
    await t.settle();
    const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
    expect(res.status).toBe(200);
    expect(res.body.data.total_products).toBe(4);
    for (const p of res.body.data.products) {
      expect(p.regime).toMatch(/^[PCX]$/);
      // An 8-digit NCM where the built-in table has the row, else the HS subheading (the air gun: 9304.00, hs-fallback).
      expect(p.ncm_code).toMatch(/^\d{4}\.\d{2}(\.\d{2})?$/);
      expect(typeof p.cif_value).toBe('number');
      expect(typeof p.customs_duty).toBe('number');
      expect(typeof p.ddp_value).toBe('number');
      expect(['V', 'A', 'RO']).toContain(p.customs_channel);
    }
    const gun = res.body.data.products.find((p: { description: string }) => p.description.startsWith('Pistola'));
    expect(gun).toMatchObject({ regime: 'X', customs_channel: 'RO' });
    const shirt = res.body.data.products.find((p: { item_key: string }) => p.item_key === 'line-1');
    expect(shirt).toMatchObject({ regime: 'P', tax_id_valid: true, quota: 4 });
  });

  it('answers the same results for the same input twice', async () => {
    const { token } = await t.account('Twice Couriers');
    const same = productsFor().slice(0, 2);
    const a = await submitForBatch(t, token, manifest(0, { items: same }));
    await t.settle();
    const b = await submitForBatch(t, token, manifest(0, { items: same }));
    await t.settle();
    const strip = (body: any) => body.data.products.map(({ quota: _q, ...p }: Record<string, unknown>) => p);
    const first = await t.call('GET', `/v1/couriers/manifests/${a}/download`, { token });
    const second = await t.call('GET', `/v1/couriers/manifests/${b}/download`, { token });
    expect(strip(second.body)).toEqual(strip(first.body));
  });

  it('fires total_due, then processing_completed with the run, then processed with the results, once each', async () => {
    const { token } = await t.account('Events Couriers');
    const batchId = await submitForBatch(t, token, manifest(0, { items: productsFor().slice(0, 1) }));
    await t.settle();
    const types = seen.map((e) => e.type).filter((x) => x.startsWith('manifest.') && x !== 'manifest.submitted');
    expect(types).toEqual(['manifest.total_due', 'manifest.processing_completed', 'manifest.processed']);
    const status = (await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data;
    const data = (type: string) => seen.find((e) => e.type === type)!.data as Record<string, unknown>;
    expect(data('manifest.processing_completed')).toMatchObject({ run_id: status.run_id, covers_all: true, pages: 1 });
    expect(data('manifest.processing_completed')).not.toHaveProperty('summary');
    expect(data('manifest.processed')).toMatchObject({ batch_id: batchId, summary: { total_products: 1 } });
  });

  it('reports invalid tax ids with their AWBs', async () => {
    const { token } = await t.account('Bad Cuit Couriers');
    await submitForBatch(t, token, manifest(0, { items: [item(77, { consigneeIdType: 'CUIL', consigneeIdNumber: '20123456780' })] }));
    await t.settle();
    const alert = seen.find((e) => e.type === 'manifest.invalid_cuit_detected');
    expect(alert?.data).toMatchObject({ awbs: [expect.objectContaining({ awb_number: 'AWB0000077' })] });
  });

  it('answers 409 processing_incomplete for a download before 100%', async () => {
    const { token } = await t.account('Early Couriers');
    const batchId = await submitForBatch(t, token, manifest(1));
    const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('processing_incomplete');
    await t.settle();
  });

  it('re-runs an UPDATE for the changed records only, and the progress shows that run', async () => {
    const { token } = await t.account('Rerun Couriers');
    const first = manifest(3);
    const batchId = await submitForBatch(t, token, first);
    await t.settle();
    const update = await t.submit(submitPath(), { token, body: { mawbNumber: first.mawbNumber, batchId, items: [item(1), item(2, { fobValueUsd: 999 })] } });
    expect(update.status).toBe(202);
    const pending = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
    expect(pending.body.data.status).toBe('pending');
    await t.settle();
    const done = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
    expect(done.body.data).toMatchObject({ status: 'completed', overall_progress: 100, run_id: update.body.idempotency_key });
    expect(done.body.data.pipeline_steps[0].pages).toBe(1);
    const dl = await t.call('GET', `/v1/couriers/manifests/${batchId}/download`, { token });
    expect(dl.body.data.products.find((p: { item_key: string }) => p.item_key === 'line-2').fob_value).toBe(999);
  });

  it('downloads csv and a real xlsx workbook', async () => {
    const { token } = await t.account('Formats Couriers');
    const batchId = await submitForBatch(t, token, manifest(2));
    await t.settle();
    const csv = await fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toContain('awb_number,tracking_number');
    expect(lines).toHaveLength(3);
    const xlsx = await fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=xlsx`, { headers: { authorization: `Bearer ${token}` } });
    const bytes = Buffer.from(await xlsx.arrayBuffer());
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    expect((await t.call('GET', `/v1/couriers/manifests/${batchId}/download?format=pdf`, { token })).status).toBe(422);
  });

  it('fills the alternative interface detail with results and the quota per product', async () => {
    const { token } = await t.account('Alt Results Couriers');
    const created = await t.submit('/v1/manifests', {
      token,
      body: { manifest: 'ALT-RUN-1', products: [{ awb_number: 'ALTR1', consignee: 'Ana', tax_id: '20-12345678-6', product_description: 'Zapatillas running', quantity: 1, unit_value: 60, country_of_manufacture: 'CN' }] },
    });
    expect(created.status).toBe(201);
    await t.settle();
    const detail = await t.call('GET', '/v1/manifests/ALT-RUN-1', { token });
    expect(detail.body.data.manifest.processing_status).toBe('completed');
    expect(detail.body.data.products[0]).toMatchObject({
      awb_number: 'ALTR1',
      ncm_code: expect.stringMatching(/^\d{4}\.\d{2}\.\d{2}/),
      cif_value: expect.any(Number),
      ddp_value: expect.any(Number),
      customs_duty: expect.any(Number),
      quota: { tax_id: '20123456786', quota: expect.any(Number) },
    });
  });
});
