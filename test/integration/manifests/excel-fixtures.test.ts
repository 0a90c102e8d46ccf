import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { submitPath } from '#support/manifests';
import { readSheetRows } from '#infra/spreadsheet';
import { rowsToSubmission } from '#core/manifests/excel/convert';
import { layoutFor } from '#core/manifests/excel/slugs';
import { ManifestSubmission } from '#core/manifests/submission';
import { fixtureRow } from '#scripts/make-excel-fixtures';

/**
 * Workbooks made by other programs than SheetJS (scripts/make-excel-fixtures.ts): exceljs, and
 * LibreOffice's xlsx and xls of the same sheet. Two merged title rows, the header in row 3 with
 * spelled-out field names, a date column, FOB values stored as text, tax ids as numbers, trailing
 * formatted empty rows.
 */
const t = useTwin();
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/excel/${name}`, import.meta.url));

const files = [
  ['exceljs xlsx', 'exceljs-golucky-50.xlsx', 50],
  ['LibreOffice xlsx', 'libreoffice/exceljs-golucky-50.xlsx', 50],
  ['LibreOffice xls', 'libreoffice/exceljs-golucky-50.xls', 50],
  ['exceljs xlsx, 10,000 rows', 'exceljs-golucky-10000.xlsx', 10_000],
] as const;

describe('workbooks written by exceljs and LibreOffice', () => {
  for (const [label, name, rows] of files) {
    it(`convert the ${label} under golucky with every row, its values as written`, async () => {
      const sheet = await readSheetRows(fixture(name));
      const out = v.parse(ManifestSubmission, rowsToSubmission(layoutFor('golucky')!, sheet, { mawbNumber: 'FIX-1' }));
      expect(out.items).toHaveLength(rows);
      for (const i of [1, 2, 3, rows]) {
        const want = fixtureRow(i);
        expect(out.items[i - 1], `${label} row ${i}`).toMatchObject({
          trackingNumber: want.trackingNumber,
          awbNumber: want.awbNumber,
          consigneeName: want.consigneeName,
          consigneeIdNumber: '20123456786',
          fobValueUsd: Number(want.fobValueUsd),
          totalWeightKg: want.totalWeightKg,
          amountOfItems: want.amountOfItems,
          originCountry: 'CN',
        });
      }
    }, 60_000);
  }

  it('take the LibreOffice xls through the route: 202 and a batch of 50', async () => {
    const { token } = await t.account('Fixture Couriers');
    const form = new FormData();
    form.append('mawbNumber', 'FIX-XLS-1');
    form.append('file', new Blob([fixture('libreoffice/exceljs-golucky-50.xls')]), 'manifest.xls');
    const res = await fetch(t.twin.apiUrl + submitPath('golucky'), { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(res.status).toBe(202);
    await t.intake();
    const list = await t.call('GET', '/v1/couriers/manifests', { token });
    expect(list.body.data[0]).toMatchObject({ manifest_id: 'FIX-XLS-1', summary: { total_articles: 50 } });
  });
});
