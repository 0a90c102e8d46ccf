/**
 * Writes the Excel fixtures of test/fixtures/excel/ that are made by programs other than SheetJS
 * (the service's own reader), as partners' systems make them. Run once and commit the files:
 *
 *   npx tsx scripts/make-excel-fixtures.ts
 *   cd test/fixtures/excel && soffice --headless --convert-to xlsx --outdir libreoffice exceljs-golucky-50.xlsx \
 *     && soffice --headless --convert-to xls --outdir libreoffice exceljs-golucky-50.xlsx
 *
 * (LibreOffice 7.4, Debian's libreoffice-calc-nogui.) Each workbook: two merged title rows, the
 * header in row 3 in the spelled-out field names of spec 2.5 ("Consignee Name"), a date column as
 * real dates (not a field: ignored), FOB values stored as text ("12.50"), tax ids as numbers,
 * and trailing empty rows with only formatting. The `golucky` layout looks for its header in the
 * first 4 rows.
 */
import ExcelJS from 'exceljs';
import { mkdirSync } from 'node:fs';

const dir = new URL('../test/fixtures/excel/', import.meta.url).pathname;
mkdirSync(dir, { recursive: true });

const headers = ['Tracking Number', 'AWB Number', 'Order Date', 'Consignee Name', 'Consignee Id Type', 'Consignee Id Number', 'Consignee Email', 'Item Description', 'Fob Value Usd', 'Total Weight Kg', 'Amount Of Items', 'Origin Country'];

/** Row `i` of a fixture (also what the fixture test expects back). */
export function fixtureRow(i: number) {
  return {
    trackingNumber: `GL${String(i).padStart(6, '0')}`,
    awbNumber: `AWBX${String(i).padStart(6, '0')}`,
    orderDate: new Date(Date.UTC(2026, 10, 1 + (i % 20))),
    consigneeName: `Consignee ${i}`,
    consigneeIdType: 'CUIL',
    consigneeIdNumber: 20123456786,
    consigneeEmail: `buyer${i}@example.com`,
    itemDescription: ['Cotton t-shirt', 'Zapatillas running', 'Phone case silicone'][i % 3],
    fobValueUsd: (5 + (i % 90) + 0.5).toFixed(2),
    totalWeightKg: 0.25 + (i % 4) * 0.5,
    amountOfItems: 1 + (i % 3),
    originCountry: 'CN',
  };
}

async function write(rows: number, file: string) {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'exceljs';
  const ws = wb.addWorksheet('Manifest');
  ws.mergeCells('A1:L1');
  ws.getCell('A1').value = 'GoLucky Express - Manifest export';
  ws.getCell('A1').font = { bold: true, size: 14 };
  ws.mergeCells('A2:L2');
  ws.getCell('A2').value = 'Flight AR1303 MIA-EZE';
  ws.getRow(3).values = headers;
  ws.getRow(3).font = { bold: true };
  for (let i = 1; i <= rows; i++) {
    const r = fixtureRow(i);
    ws.getRow(3 + i).values = [r.trackingNumber, r.awbNumber, r.orderDate, r.consigneeName, r.consigneeIdType, r.consigneeIdNumber, r.consigneeEmail, r.itemDescription, r.fobValueUsd, r.totalWeightKg, r.amountOfItems, r.originCountry];
  }
  ws.getColumn(3).numFmt = 'yyyy-mm-dd';
  // Trailing rows with formatting and no values, as a sheet edited by hand keeps them.
  for (let i = rows + 4; i < rows + 14; i++) ws.getRow(i).getCell(1).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFFF00' } };
  await wb.xlsx.writeFile(dir + file);
  console.log(`wrote ${file}: ${rows} rows`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await write(50, 'exceljs-golucky-50.xlsx');
  await write(10_000, 'exceljs-golucky-10000.xlsx');
}
