import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { submitPath } from '#support/manifests';
import { excelSlugs, layoutFor } from '#core/manifests/excel/slugs';
import { templateColumns, templatesDir } from '#scripts/make-excel-templates';

const t = useTwin();

/** One plausible cell per item field and combined part, as a partner would type it. */
const sample: Record<string, string | number> = {
  awbNumber: 'TPL0000001',
  trackingNumber: 'TRK0000001',
  boxNumber: 'BAG1',
  itemIdempotencyKey: 'line-1',
  shipperName: 'Shenzhen Goods Ltd',
  shipperEmail: 'shop@example.com',
  customerName: 'Goods Store',
  consigneeName: 'Ana Pérez',
  firstName: 'Ana',
  lastName: 'Pérez',
  consigneeIdType: 'CUIL',
  consigneeIdNumber: '20-12345678-6',
  consigneeAddress: 'Av. Corrientes 1234',
  consigneeCity: 'CABA',
  consigneeProvince: 'Buenos Aires',
  consigneePostalCode: 'C1043',
  consigneePhoneNumber: '+54 9 11 2233 4455',
  consigneeEmail: 'ana@example.com',
  itemName: 'T-shirt',
  itemDescription: 'Cotton t-shirt',
  hsCode: '6109.10.00',
  Category: 'Apparel',
  amountOfPackages: 1,
  amountOfItems: 1,
  quantity: 1,
  units: 1,
  unitPrice: 12.5,
  fobValueUsd: 12.5,
  totalWeightKg: 0.3,
  totalVolumetricWeightKg: 0.4,
  originCountry: 'CN',
  productLink: 'https://example.com/p/1',
  imageLink: 'https://example.com/p/1.jpg',
};

async function template(slug: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(readFileSync(`${templatesDir}${slug}.xlsx`) as unknown as ArrayBuffer);
  return wb;
}

describe('the Excel templates of docs/partners/templates', () => {
  it.each(excelSlugs)('%s: the committed template has the header row its layout reads (npx tsx scripts/make-excel-templates.ts rewrites it)', async (slug) => {
    const sheet = (await template(slug)).worksheets[0];
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual(templateColumns(layoutFor(slug)!).map((c) => c.header));
  });

  it.each(excelSlugs)('%s: the template filled with one row is accepted by its slug (202, one item)', async (slug) => {
    const layout = layoutFor(slug)!;
    const wb = await template(slug);
    const sheet = wb.worksheets[0];
    sheet.getRow(2).values = layout.columns.map((c) => {
      const name = c.field ?? c.part!;
      const value = sample[name];
      if (value === undefined) throw new Error(`no sample for ${name}`);
      return c.as === 'grams' && typeof value === 'number' ? value * 1000 : value;
    });
    const form = new FormData();
    form.append('mawbNumber', `TPL-${slug}`);
    form.append('file', new Blob([Buffer.from(await wb.xlsx.writeBuffer())]), `${slug}.xlsx`);
    const { token } = await t.account(`Template ${slug}`);
    const res = await fetch(t.twin.apiUrl + submitPath(slug), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': crypto.randomUUID() }, body: form });
    const body = (await res.json()) as { tracking?: { items_count: number } };
    expect(res.status, JSON.stringify(body)).toBe(202);
    expect(body.tracking?.items_count).toBe(1);
  });
});
