import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { workbook } from '#support/workbooks';
import { submitPath } from '#support/manifests';
import { excelSlugs } from '#core/manifests/excel/slugs';

const t = useTwin();

const header = ['Guía Hija', 'Destinatario', 'Nro. Doc.', 'Email', 'Descripción', 'Valor FOB USD', 'País Origen'];
const row = (i: number, email = `buyer${i}@example.com`) => [`XL${i}`, `Buyer ${i}`, '20-12345678-6', email, 'Zapatillas', 45.5, 'cn'];

function excelForm(file: Buffer, fields: Record<string, string>, name = 'manifiesto.xlsx') {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([file]), name);
  return form;
}

async function postForm(token: string, slug: string, form: FormData, headers: Record<string, string> = {}) {
  const res = await fetch(t.twin.apiUrl + submitPath(slug), { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: form });
  const body = (await res.json()) as any;
  await t.intake();
  return { status: res.status, body };
}

describe('Excel submissions', () => {
  it('convert a partner workbook into the same intake: 202, one batch with every row', async () => {
    const { token } = await t.account('Excel Couriers');
    const key = randomUUID();
    const res = await postForm(token, 'bfe', excelForm(workbook([header, row(1), row(2), row(3)]), { mawbNumber: 'XL-MAWB-1', flightNumber: 'AR1303' }), { 'idempotency-key': key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', manifest_number: 'XL-MAWB-1', mode: 'create', tracking: { items_count: 3 } });
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data[0]).toMatchObject({ manifest_id: 'XL-MAWB-1', summary: { total_articles: 3 } });
  });

  it('name the spreadsheet row and column of a bad cell, under the JSON field path', async () => {
    const { token } = await t.account('Excel Bad Couriers');
    const res = await postForm(token, 'bfe', excelForm(workbook([header, row(1), row(2, 'not-an-email')]), { mawbNumber: 'XL-MAWB-2' }));
    expect(res.status).toBe(422);
    expect(res.body.errors['items.1.consigneeEmail'][0]).toMatch(/^Row 3, column "Email"/);
  });

  it('refuse JSON field names as column headers with 422 pointing to `default`', async () => {
    const { token } = await t.account('Excel Json Couriers');
    const res = await postForm(token, 'golucky', excelForm(workbook([['awbNumber', 'consigneeName', 'originCountry'], ['A1', 'Juan', 'CN']]), { mawbNumber: 'XL-MAWB-3' }));
    expect(res.status).toBe(422);
    expect(res.body.errors.file[0]).toContain('default');
  });

  it('convert a workbook with spelled-out headers ("Consignee Name") under every slug, and name its column in errors', async () => {
    const { token } = await t.account('Excel Spelled Couriers');
    const spelled = ['AWB Number', 'Tracking Number', 'Consignee Name', 'Consignee Email', 'Item Description', 'Fob Value Usd', 'Origin Country'];
    for (const slug of ['bfe', 'golucky', '360lion', 'n24', 'nohs', 'mercadolibre', 'mailamericas']) {
      const rows = [spelled, ['SP1', 'TR1', 'Ana', 'ana@example.com', 'Cotton t-shirt', 12.5, 'CN'], ['SP2', 'TR2', 'Luis', 'luis@example.com', 'Zapatillas', 40, 'cn']];
      const res = await postForm(token, slug, excelForm(workbook(rows), { mawbNumber: `XL-SP-${slug}` }));
      expect(res.status, slug).toBe(202);
      expect(res.body.tracking.items_count, slug).toBe(2);
    }
    const bad = await postForm(token, 'bfe', excelForm(workbook([spelled, ['SP1', 'TR1', 'Ana', 'not-an-email', 'Cotton t-shirt', 12.5, 'CN']]), { mawbNumber: 'XL-SP-BAD' }));
    expect(bad.status).toBe(422);
    expect(bad.body.errors['items.0.consigneeEmail'][0]).toMatch(/^Row 2, column "Consignee Email"/);
  });

  it('take a spelled-out "Tracking Number" (or "AWB Number") alone as the item key under every slug, as spec 2.5 does', async () => {
    const { token } = await t.account('Excel Tracking Couriers');
    const sheet = (key: string) => [
      [key, 'Consignee Name', 'Item Description', 'Fob Value Usd', 'Origin Country'],
      ['TR1', 'Ana', 'Cotton t-shirt', 12.5, 'CN'],
      ['TR2', 'Luis', 'Zapatillas', 40, 'cn'],
    ];
    for (const slug of excelSlugs) {
      for (const key of ['Tracking Number', 'AWB Number']) {
        const mawb = `XL-KEY-${slug}-${key.split(' ')[0]}`;
        const res = await postForm(token, slug, excelForm(workbook(sheet(key)), { mawbNumber: mawb }));
        expect(res.status, `${slug} ${key}: ${JSON.stringify(res.body.errors)}`).toBe(202);
        expect(res.body.tracking.items_count).toBe(2);
        const detail = await t.call('GET', `/v1/manifests/${mawb}`, { token });
        const products = detail.body.data.products.map((p: { awb_number: string; tracking_number: string | null }) => [p.awb_number, p.tracking_number]).sort();
        expect(products, `${slug} ${key}`).toEqual(key === 'AWB Number' ? [['TR1', null], ['TR2', null]] : [['TR1', 'TR1'], ['TR2', 'TR2']]);
      }
    }
  });

  it('refuse a file that is not a workbook', async () => {
    const { token } = await t.account('Excel Fake Couriers');
    const res = await postForm(token, 'bfe', excelForm(Buffer.from('%PDF-1.7 not a sheet'), { mawbNumber: 'XL-MAWB-4' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('file');
  });
});
