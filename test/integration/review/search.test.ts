/**
 * The broker's search (issue 40, item 2; docs/brokers/search.md) on the twin: one field finds a
 * batch by its guía or manifest number, an AWB, a tax id, a consignee, a product description and
 * a document, across every account, by prefix or by words; only a broker (or admin) may ask.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { freshCuil, item, submitForBatch, submitPath } from '#support/manifests';
import { multipart, pdf } from '#support/files';

const t = useTwin();

let partner: { accountId: number; token: string };
let other: { accountId: number; token: string };
let broker: { token: string };
let batchId: string;
let otherBatch: string;
const run = randomUUID().slice(0, 6).toUpperCase();
const mawb = `880-${run}77`;
const manifestNumber = `MAN-${run}-0042`;
const cuil = freshCuil('27');
const awb = (i: number) => `SR${run}${String(i).padStart(4, '0')}`;

type Group = { results: Record<string, unknown>[]; more: boolean; next_cursor: string | null };
const find = async (q: string, query = '', token = broker.token) => {
  const res = await t.call('GET', `/v1/couriers/review/search?q=${encodeURIComponent(q)}${query}`, { token });
  expect(res.status).toBe(200);
  return res.body.data as Record<'batches' | 'awbs' | 'tax_ids' | 'consignees' | 'products' | 'documents', Group> & { kinds: string[] };
};

beforeAll(async () => {
  partner = await t.account('Búsqueda Couriers SA');
  other = await t.account('Otro Courier SRL');
  broker = await t.account('Broker Staff', { kind: 'broker' });
  batchId = await submitForBatch(t, partner.token, {
    mawbNumber: mawb,
    manifestNumber,
    items: [
      item(1, { awbNumber: awb(1), itemIdempotencyKey: 'l1', consigneeName: 'María José Pérez', consigneeIdType: 'CUIL', consigneeIdNumber: cuil, itemDescription: 'Casco de bicicleta para adulto' }),
      item(2, { awbNumber: awb(2), itemIdempotencyKey: 'l2', consigneeName: 'María José Pérez', consigneeIdType: 'CUIL', consigneeIdNumber: cuil, itemDescription: 'Casco de bicicleta para adulto' }),
      item(3, { awbNumber: awb(3), itemIdempotencyKey: 'l3', consigneeName: 'Jorge Núñez', itemDescription: 'Funda de teléfono silicona' }),
    ],
  });
  otherBatch = await submitForBatch(t, other.token, {
    mawbNumber: `990-${run}11`,
    items: [item(4, { awbNumber: `ZZ${run}0001`, itemIdempotencyKey: 'o1', consigneeName: 'Pérez Gómez Ana', itemDescription: 'Auriculares inalámbricos bluetooth' })],
  });
  const form = await multipart({ document_type: 'awb', manifest_id: manifestNumber, metadata: JSON.stringify({ title: `Guía aérea ${run}` }) }, { name: `factura-proforma-${run}.pdf`, data: pdf() });
  const up = await t.call('POST', '/v1/transport/documents/upload', { token: partner.token, raw: form.body, headers: { 'content-type': form.contentType } });
  expect(up.status).toBe(201);
}, 60_000);

describe('GET /v1/couriers/review/search', () => {
  it('finds a batch by the start of its guía (dashes or not) and by its manifest number, with its account name and console link', async () => {
    for (const q of [`880-${run}`, `880${run}7`, manifestNumber.slice(0, 8).toLowerCase()]) {
      const found = await find(q);
      expect(found.batches.results).toEqual([
        expect.objectContaining({ kind: 'batch', batch_id: batchId, manifest_number: manifestNumber, mawb_number: mawb, account_id: partner.accountId, account_name: 'Búsqueda Couriers SA', link: `/console/manifests/${batchId}` }),
      ]);
    }
  });

  it('finds an AWB by its whole number and by its start, across accounts, each once', async () => {
    const whole = await find(awb(2));
    expect(whole.awbs.results.map((r) => [r.awb_number, r.batch_id])).toEqual([[awb(2), batchId]]);
    expect(whole.awbs.results[0].link).toBe(`/console/manifests/${batchId}?awb=${awb(2)}`);
    const start = await find(`sr${run}`);
    expect(start.awbs.results.map((r) => r.awb_number).sort()).toEqual([awb(1), awb(2), awb(3)]);
    const both = await find(`zz-${run}`);
    expect(both.awbs.results.map((r) => r.batch_id)).toEqual([otherBatch]);
    expect(both.awbs.results[0].account_name).toBe('Otro Courier SRL');
  });

  it('finds a CUIL written with or without dashes, by its start, linking to its quota', async () => {
    const dashed = `${cuil.slice(0, 2)}-${cuil.slice(2, 10)}-${cuil.slice(10)}`;
    for (const q of [cuil, dashed, cuil.slice(0, 7)]) {
      const found = await find(q);
      const mine = found.tax_ids.results.filter((r) => r.tax_id === cuil);
      expect(mine).toEqual([expect.objectContaining({ tax_id: cuil, tax_id_type: 'CUIL', consignee_name: 'María José Pérez', batch_id: batchId, link: `/console/quota/${cuil}` })]);
    }
  });

  it('finds a consignee by words in any order, without accents or case, the last word by its start', async () => {
    const found = await find('perez maria jo');
    expect(found.consignees.results).toEqual([expect.objectContaining({ consignee_name: 'María José Pérez', tax_id: cuil, batch_id: batchId, link: `/console/quota/${cuil}` })]);
    const both = await find('PÉREZ');
    expect(both.consignees.results.map((r) => r.consignee_name).sort()).toEqual(['María José Pérez', 'Pérez Gómez Ana']);
    expect((await find('perez jorge')).consignees.results).toEqual([]);
  });

  it('finds a product by words of its description, once per batch however many products carry it', async () => {
    const found = await find('bicicleta casco');
    expect(found.products.results).toEqual([expect.objectContaining({ description: 'Casco de bicicleta para adulto', batch_id: batchId, manifest_number: manifestNumber })]);
    expect((await find('telefono sil')).products.results.map((r) => r.description)).toEqual(['Funda de teléfono silicona']);
  });

  it("finds a document by its file name's words and by its title, linking to it", async () => {
    for (const q of ['factura proforma', `guia aerea ${run.toLowerCase()}`]) {
      const found = await find(q);
      expect(found.documents.results).toEqual([expect.objectContaining({ kind: 'document', file_name: `factura-proforma-${run}.pdf`, document_type: 'awb', state: 'uploaded', account_name: 'Búsqueda Couriers SA', link: expect.stringMatching(/^\/console\/documents\/\d+$/) })]);
    }
  });

  it('caps each kind at per_page with a more mark, and pages one kind with its cursor', async () => {
    const first = await find(`SR${run}`, '&kind=awb&per_page=2');
    expect(first.awbs.results).toHaveLength(2);
    expect(first.awbs.more).toBe(true);
    expect(first.awbs.next_cursor).toEqual(expect.any(String));
    const second = await find(`SR${run}`, `&kind=awb&per_page=2&cursor=${first.awbs.next_cursor}`);
    expect(second.awbs.results.map((r) => r.awb_number)).toEqual([awb(3)]);
    expect(second.awbs.more).toBe(false);
    const all = await find(`SR${run}`, '&per_page=2');
    expect(all.awbs.more).toBe(true);
    expect(all.awbs.next_cursor).toBeNull();
  });

  it('does not show a result twice when the same items are sent again in update mode, and finds an updated item by its new values', async () => {
    const res = await t.submit(submitPath(), {
      token: partner.token,
      body: {
        mawbNumber: mawb,
        manifestNumber,
        batchId,
        items: [
          item(1, { awbNumber: awb(1), itemIdempotencyKey: 'l1', consigneeName: 'María José Pérez', consigneeIdType: 'CUIL', consigneeIdNumber: cuil, itemDescription: 'Casco de bicicleta para adulto' }),
          item(3, { awbNumber: awb(3), itemIdempotencyKey: 'l3', consigneeName: 'Jorge Núñez', itemDescription: 'Lámpara de escritorio articulada' }),
        ],
      },
    });
    expect(res.status).toBe(202);
    await t.settle();
    expect((await find(awb(1))).awbs.results).toHaveLength(1);
    expect((await find('casco bicicleta')).products.results).toHaveLength(1);
    expect((await find('maria jose perez')).consignees.results).toHaveLength(1);
    expect((await find('lampara escritorio')).products.results).toEqual([expect.objectContaining({ description: 'Lámpara de escritorio articulada', awb_number: awb(3), batch_id: batchId })]);
  });

  it('answers 403 to a partner', async () => {
    const res = await t.call('GET', `/v1/couriers/review/search?q=${awb(1)}`, { token: partner.token });
    expect(res.status).toBe(403);
  });

  it('answers 422 naming q when it is missing, empty or too long, and cursor when it is not one', async () => {
    for (const q of ['', '?q=', '?q=%20%20', `?q=${'a'.repeat(201)}`]) {
      const res = await t.call('GET', `/v1/couriers/review/search${q}`, { token: broker.token });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['q']);
    }
    const bad = await t.call('GET', '/v1/couriers/review/search?q=abc&kind=awb&cursor=nonsense', { token: broker.token });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['cursor']);
  });

  it('answers every group, empty, for a query that finds nothing or is too short to be any kind', async () => {
    const found = await find('x');
    expect(found.kinds).toEqual([]);
    for (const g of ['batches', 'awbs', 'tax_ids', 'consignees', 'products', 'documents'] as const) expect(found[g]).toEqual({ results: [], more: false, next_cursor: null });
  });
});
