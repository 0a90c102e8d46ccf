import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { recordEvents } from '#support/events';
import { item, submitPath } from '#support/manifests';
import { cuitCheckDigit } from '#core/customs/tax-id';
import { quotaYear } from '#core/customs/regime-rules';
import { itemsOfAwb } from '#infra/entities/manifests';
import { quotaOf, reserveQuota } from '#infra/entities/quota';
import { setItemsTaxId } from '#infra/entities/manifest-items-taxid';

const t = useTwin();
const events = recordEvents();

let nextDni = 40_000_000;
function cuil() {
  const first10 = `20${++nextDni}`;
  return first10 + cuitCheckDigit(first10);
}
const formatted = (id: string) => `${id.slice(0, 2)}-${id.slice(2, 10)}-${id.slice(10)}`;

/** A partner with one submitted manifest: two lines of one AWB and one line of another. */
async function partnerWithManifest(name: string, taxId = '20123456786') {
  const partner = await t.account(name);
  const awb = `CI-${randomUUID().slice(0, 8)}`;
  const key = randomUUID();
  const body = {
    mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`,
    items: [
      item(1, { awbNumber: awb, consigneeIdNumber: taxId }),
      item(2, { awbNumber: awb, consigneeIdNumber: taxId, itemDescription: 'Mug' }),
      item(3, { awbNumber: `${awb}-B`, consigneeIdNumber: taxId }),
    ],
  };
  const res = await t.submit(submitPath(), { token: partner.token, body, headers: { 'idempotency-key': key } });
  if (res.status !== 202) throw new Error(res.text);
  const status = await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token: partner.token });
  return { ...partner, awb, batchId: status.body.batch_id as string };
}

const canEdit = (token: string, awb: string) => t.call('POST', '/v1/couriers/client-info/can-edit', { token, body: { awb_number: awb } });
const update = (token: string, awb: string, taxId: string) => t.call('PUT', '/v1/couriers/client-info', { token, body: { awb_number: awb, tax_id: taxId } });

async function closeBatch(batchId: string) {
  const broker = await t.account(`Broker ${randomUUID().slice(0, 6)}`, { kind: 'broker' });
  const res = await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token });
  expect(res.status).toBe(200);
  return res.body.data.closed_at as string;
}

describe('POST /v1/couriers/client-info/can-edit', () => {
  it('answers editable with the current tax id before the broker closes the batch', async () => {
    const p = await partnerWithManifest('Edit Couriers');
    const res = await canEdit(p.token, p.awb);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { awb_number: p.awb, can_edit: true, current_tax_id: '20123456786', status: 'editable' } });
  });

  it('answers cleared once the broker closed the batch', async () => {
    const p = await partnerWithManifest('Cleared Couriers');
    await closeBatch(p.batchId);
    const res = await canEdit(p.token, p.awb);
    expect(res.body.data).toEqual({ awb_number: p.awb, can_edit: false, current_tax_id: '20123456786', status: 'cleared' });
  });

  it('answers 404 for an AWB the caller does not have', async () => {
    const p = await partnerWithManifest('Unknown Awb Couriers');
    const res = await canEdit(p.token, 'NO-SUCH-AWB');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'not_found' });
  });

  it('answers 404 for another account\'s AWB', async () => {
    const owner = await partnerWithManifest('Owner Couriers');
    const other = await t.account('Other Couriers');
    expect((await canEdit(other.token, owner.awb)).status).toBe(404);
  });

  it('answers 422 without an awb_number', async () => {
    const p = await t.account('Empty Body Couriers');
    const res = await t.call('POST', '/v1/couriers/client-info/can-edit', { token: p.token, body: {} });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('awb_number');
  });
});

describe('PUT /v1/couriers/client-info', () => {
  it('changes the stored tax id of every item of the AWB, and only of that AWB', async () => {
    const p = await partnerWithManifest('Update Couriers');
    const next = cuil();
    const res = await update(p.token, p.awb, formatted(next));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: `Tax id of AWB ${p.awb} updated to ${formatted(next)}; web services and calculations run again for it.`,
      data: { awb_number: p.awb, tax_id_formatted: formatted(next) },
    });
    const stored = await itemsOfAwb(p.accountId, p.awb);
    expect(stored.map((i) => [i.data.consigneeIdNumber, i.data.consigneeIdType])).toEqual([[next, 'CUIL'], [next, 'CUIL']]);
    expect((await itemsOfAwb(p.accountId, `${p.awb}-B`))[0].data.consigneeIdNumber).toBe('20123456786');
    expect((await canEdit(p.token, p.awb)).body.data.current_tax_id).toBe(next);
  });

  it('publishes manifest.reprocess_requested for web services and calculations of that AWB', async () => {
    const p = await partnerWithManifest('Reprocess Couriers');
    await update(p.token, p.awb, cuil());
    const reprocess = events.filter((e) => e.type === 'manifest.reprocess_requested');
    expect(reprocess).toHaveLength(1);
    expect(reprocess[0]).toMatchObject({ account_id: p.accountId, data: { batch_id: p.batchId, awb_number: p.awb, stages: ['webservices', 'calculations'] } });
  });

  it('gives back the slot the AWB held under the old tax id', async () => {
    const old = cuil();
    const p = await partnerWithManifest('Slot Couriers', old);
    const year = quotaYear(new Date());
    await reserveQuota({ taxId: old, year, awb: p.awb, accountId: p.accountId, at: new Date() });
    await reserveQuota({ taxId: old, year, awb: `${p.awb}-B`, accountId: p.accountId, at: new Date() });
    expect((await quotaOf(old, year)).used).toBe(2);
    await update(p.token, p.awb, cuil());
    expect(await quotaOf(old, year)).toMatchObject({ used: 1, records: 1 });
  });

  it('refuses with 409 once the broker closed the batch, and changes nothing', async () => {
    const p = await partnerWithManifest('Closed Couriers');
    const closedAt = await closeBatch(p.batchId);
    const res = await update(p.token, p.awb, cuil());
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, error: 'conflict', awb_number: p.awb, closed_at: closedAt });
    expect(res.body.message).toMatch(/is cleared: its batch was closed by the broker/);
    expect((await itemsOfAwb(p.accountId, p.awb))[0].data.consigneeIdNumber).toBe('20123456786');
    expect(events.some((e) => e.type === 'manifest.reprocess_requested')).toBe(false);
  });

  it('writes nothing when the batch closes between the read and the write', async () => {
    const p = await partnerWithManifest('Race Couriers');
    const keys = (await itemsOfAwb(p.accountId, p.awb)).map((i) => i.itemKey);
    await closeBatch(p.batchId);
    expect(await setItemsTaxId(p.batchId, keys, { taxId: '12345678', taxIdType: 'DNI', at: new Date().toISOString() })).toBe('closed');
    expect((await itemsOfAwb(p.accountId, p.awb)).map((i) => i.data.consigneeIdNumber)).toEqual(['20123456786', '20123456786']);
  });

  it('answers 422 on tax_id for a tax id whose check digit is wrong', async () => {
    const p = await partnerWithManifest('Bad Id Couriers');
    const res = await update(p.token, p.awb, '20-12345678-5');
    expect(res.status).toBe(422);
    expect(res.body.errors.tax_id[0]).toBe('Not a valid CUIT, CUIL or DNI: check digit of CUIL 20-12345678-5 is 5, expected 6.');
  });

  it('answers 404 for another account\'s AWB and leaves it as it was', async () => {
    const owner = await partnerWithManifest('Victim Couriers');
    const other = await t.account('Intruder Couriers');
    expect((await update(other.token, owner.awb, cuil())).status).toBe(404);
    expect((await itemsOfAwb(owner.accountId, owner.awb))[0].data.consigneeIdNumber).toBe('20123456786');
  });

  it('accepts a DNI and stores it as a DNI', async () => {
    const p = await partnerWithManifest('Dni Couriers');
    const res = await update(p.token, p.awb, '12.345.678');
    expect(res.body.data).toEqual({ awb_number: p.awb, tax_id_formatted: '12345678' });
    expect((await itemsOfAwb(p.accountId, p.awb))[0].data).toMatchObject({ consigneeIdNumber: '12345678', consigneeIdType: 'DNI' });
  });
});
