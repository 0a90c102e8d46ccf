import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { items, submitPath } from '#support/manifests';
import { XLSX } from '#support/workbooks';
import { productColumns } from '#core/manifests/product-table';

const t = useTwin();

describe('manifest downloads in Spanish (lang=es, issue 40)', () => {
  let token: string;
  let batchId: string;
  const download = (query: string) => fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?${query}`, { headers: { authorization: `Bearer ${token}` } });
  const workbook = async (query: string) => {
    const res = await download(query);
    expect(res.status).toBe(200);
    return { res, book: XLSX.read(Buffer.from(await res.arrayBuffer()), { type: 'buffer' }) };
  };

  beforeAll(async () => {
    ({ token } = await t.account('Spanish Downloads Couriers'));
    const key = randomUUID();
    const res = await t.call('POST', submitPath(), { token, body: { mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`, items: items(12) }, headers: { 'idempotency-key': key } });
    expect(res.status).toBe(202);
    await t.settle();
    batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id;
    expect((await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token })).body.data.overall_progress).toBe(100);
  }, 60_000);

  it('answers a workbook with Spanish sheet names, headers and summary rows, the same figures as the English one', async () => {
    const es = await workbook('format=xlsx&lang=es');
    expect(es.res.headers.get('content-disposition')).toMatch(/\.es\.xlsx"?$/);
    expect(es.book.SheetNames).toEqual(['Productos', 'Resumen']);
    const rows = XLSX.utils.sheet_to_json<unknown[]>(es.book.Sheets.Productos, { header: 1, defval: null });
    expect(rows[0]).toEqual(productColumns.map((c) => c.header_es));
    expect(rows[0]).toEqual(expect.arrayContaining(['guia_aerea', 'descripcion', 'ncm', 'derechos', 'iva', 'total_a_pagar', 'canal', 'motivos']));
    const summary = XLSX.utils.sheet_to_json<unknown[]>(es.book.Sheets.Resumen, { header: 1 });
    expect(summary.map((r) => r[0])).toEqual(expect.arrayContaining(['guias_aereas', 'articulos', 'total_a_pagar', 'moneda']));

    const en = await workbook('format=xlsx');
    expect(en.book.SheetNames).toEqual(['Products', 'Summary']);
    const enRows = XLSX.utils.sheet_to_json<unknown[]>(en.book.Sheets.Products, { header: 1, defval: null });
    expect(enRows[0]).toEqual(productColumns.map((c) => c.header));
    expect(rows.slice(1)).toEqual(enRows.slice(1));
    expect(rows).toHaveLength(13);
  });

  it('answers a csv with Spanish headers with lang=es, and the API field names without it or with lang=en', async () => {
    const first = async (query: string) => (await (await download(query)).text()).split('\r\n')[0];
    expect(await first('format=csv&lang=es')).toBe(productColumns.map((c) => c.header_es).join(','));
    expect(await first('format=csv')).toBe(productColumns.map((c) => c.header).join(','));
    expect(await first('format=csv&lang=en')).toBe(productColumns.map((c) => c.header).join(','));
  });

  it('refuses a language it does not speak, naming the field', async () => {
    const res = await download('format=csv&lang=fr');
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: 'validation_failed', errors: { lang: ['Must be one of en, es.'] } });
  });
});
