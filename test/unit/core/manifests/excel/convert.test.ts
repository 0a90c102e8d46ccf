import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '#core/errors';
import { parseDecimal, rowsToSubmission, spelledOut, spreadsheetRowOf, withSpreadsheetRows } from '#core/manifests/excel/convert';
import { excelSlugs, layoutFor } from '#core/manifests/excel/slugs';
import { ManifestSubmission } from '#core/manifests/submission';
import type { Cell, Row } from '#core/manifests/excel/rows';
import { fieldErrors } from '#http/kit/validate';

const bfe = layoutFor('bfe')!;
const form = { mawbNumber: '176-12345675' };

/** Rows as the worker gives them: numbered from 1 unless a number is given as [row, cells]. */
const sheet = (...rows: (Cell[] | [number, Cell[]])[]): Row[] =>
  rows.map((r, i) => (typeof r[0] === 'number' && Array.isArray(r[1]) ? { row: r[0], cells: r[1] as Cell[] } : { row: i + 1, cells: r as Cell[] }));

const bfeHeader: Cell[] = ['Guía Hija', 'Destinatario', 'País Origen', 'Valor FOB USD', 'Email', 'CP', 'Nro. Doc.'];

/** The converted items, as the schema outputs them. */
function itemsOf(rows: Row[], layout = bfe) {
  const res = v.safeParse(ManifestSubmission, rowsToSubmission(layout, rows, form), { abortPipeEarly: true });
  if (!res.success) throw new Error(JSON.stringify(fieldErrors(res.issues)));
  return res.output.items;
}

/** The 422 `file` messages a conversion throws. */
function fileErrorsOf(rows: Row[], layout = bfe): string[] {
  try {
    rowsToSubmission(layout, rows, form);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).status).toBe(422);
    return (err as ValidationFailed).errors.file;
  }
  throw new Error('expected the conversion to fail');
}

describe('rowsToSubmission', () => {
  it('refuses JSON field names as headers with a 422 on file that points to the `default` slug', () => {
    const [message] = fileErrorsOf(sheet(['awbNumber', 'consigneeName', 'originCountry'], ['H1', 'Ana', 'CN']));
    expect(message).toContain('use the `default` slug for JSON field names');
    expect(message).toContain('awbNumber, consigneeName, originCountry');
  });

  it('refuses a JSON field name even among the layout\'s own headers', () => {
    const [message] = fileErrorsOf(sheet([...bfeHeader, 'consigneeEmail'], ['H1', 'Ana', 'CN', 1, null, null, null, 'a@b.co']));
    expect(message).toContain('use the `default` slug for JSON field names');
  });

  it('names the missing required headers in a 422 on file', () => {
    expect(fileErrorsOf(sheet(['Guía Hija', 'Valor FOB USD'], ['H1', 10]))).toEqual([
      'The BFE layout (`bfe`) needs these column headers, not found in row 1: "Destinatario" or "Consignee Name"; "País Origen" or "Origin Country". Headers found in row 1: "Guía Hija", "Valor FOB USD".',
    ]);
  });

  it('accepts either column of a required group, and names both when neither is there', () => {
    const lion = layoutFor('360lion')!;
    expect(itemsOf(sheet(['Tracking No.', 'Consignee', 'Country of Origin'], ['LP1', 'Ana', 'CN']), lion)).toEqual([
      { trackingNumber: 'LP1', consigneeName: 'Ana', originCountry: 'CN', consigneeProvince: 'Buenos Aires' },
    ]);
    expect(fileErrorsOf(sheet(['Consignee', 'Country of Origin'], ['Ana', 'CN']), lion)[0]).toContain('"HAWB No." or "Tracking No."');
  });

  it('matches headers ignoring case, accents, punctuation and spacing', () => {
    expect(itemsOf(sheet(['  GUIA HIJA ', 'destinatario', 'Pais   Origen', 'valor fob (usd)'], ['H1', 'Ana', 'CN', 3]))).toEqual([
      { awbNumber: 'H1', consigneeName: 'Ana', originCountry: 'CN', fobValueUsd: 3, consigneeProvince: 'Buenos Aires' },
    ]);
  });

  it('looks for the header only in the rows the layout allows, so a title row breaks a layout without one', () => {
    expect(fileErrorsOf(sheet(['BFE - Manifiesto'], bfeHeader, ['H1', 'Ana', 'CN']))[0]).toContain('needs these column headers');
  });

  it('finds the header under a title block when the layout allows it', () => {
    const golucky = layoutFor('golucky')!;
    const rows = sheet([1, ['GOLUCKY EXPRESS']], [2, ['Date: 2026-11-20']], [4, ['Waybill No.', 'Receiver Name', 'Origin', 'Unit Price (USD)']], [5, ['GL1', 'Ana', 'CN', 2]]);
    expect(itemsOf(rows, golucky)).toEqual([{ trackingNumber: 'GL1', consigneeName: 'Ana', originCountry: 'CN', fobValueUsd: 2, consigneeProvince: 'Buenos Aires' }]);
  });

  it('skips rows that are blank in every column of the layout', () => {
    const rows = sheet(bfeHeader, ['H1', 'Ana', 'CN'], [null, '  ', null, null, null, null, null, 'a note outside the layout'], ['H2', 'Juan', 'US']);
    expect(itemsOf(rows).map((i) => i.awbNumber)).toEqual(['H1', 'H2']);
  });

  it('ignores columns the layout does not know', () => {
    expect(itemsOf(sheet(['Observaciones', ...bfeHeader], ['frágil', 'H1', 'Ana', 'CN']))).toEqual([
      { awbNumber: 'H1', consigneeName: 'Ana', originCountry: 'CN', consigneeProvince: 'Buenos Aires' },
    ]);
  });

  it('keeps number cells as numbers and reads numbers typed as text with a decimal comma', () => {
    const rows = sheet(bfeHeader, ['H1', 'Ana', 'CN', 12.75], ['H2', 'Ana', 'CN', '1.234,50'], ['H3', 'Ana', 'CN', '12,5'], ['H4', 'Ana', 'CN', 'US$ 7.50']);
    expect(itemsOf(rows).map((i) => i.fobValueUsd)).toEqual([12.75, 1234.5, 12.5, 7.5]);
  });

  it('passes text that is no number on, so the schema refuses it at the item\'s path', () => {
    const input = rowsToSubmission(bfe, sheet(bfeHeader, ['H1', 'Ana', 'CN', 'a consultar']), form);
    const res = v.safeParse(ManifestSubmission, input, { abortPipeEarly: true });
    expect(res.success ? {} : fieldErrors(res.issues)).toEqual({ 'items.0.fobValueUsd': ['Must be a number (not text).'] });
  });

  it('turns number cells in text columns into their digits and strips tax ids to digits', () => {
    const [item] = itemsOf(sheet(bfeHeader, ['H1', 'Ana', 'ar', null, null, 1043, '20-12.345.678/6']));
    expect(item).toMatchObject({ consigneePostalCode: '1043', consigneeIdNumber: '20123456786', originCountry: 'AR' });
  });

  it('multiplies unit value by quantity, counting a blank quantity as one', () => {
    const ml = layoutFor('mercadolibre')!;
    const header = ['Número de seguimiento', 'Comprador', 'País de origen', 'Precio unitario (US$)', 'Unidades'];
    const items = itemsOf(sheet(header, ['M1', 'Ana', 'US', 19.99, 3], ['M2', 'Ana', 'US', '10,5', null]), ml);
    expect(items.map((i) => [i.fobValueUsd, i.amountOfItems])).toEqual([[59.97, 3], [10.5, undefined]]);
  });

  it('takes the manifest root fields from the form and ignores other form fields', () => {
    const fields = JSON.parse('{"mawbNumber":"176-1","batchId":"B-9","flightNumber":"AR1303","items":"[]","_chunk_metadata":"{}","__proto__":"x","other":"y"}');
    const input = rowsToSubmission(bfe, sheet(bfeHeader, ['H1', 'Ana', 'CN']), fields);
    expect(Object.keys(input as object)).toEqual(['mawbNumber', 'batchId', 'flightNumber', 'items']);
    expect((input as { items: unknown[] }).items).toHaveLength(1);
  });

  it('refuses a sheet with a header but no item rows', () => {
    expect(fileErrorsOf(sheet(bfeHeader))).toEqual(['The sheet has a header row (row 1) but no item rows below it.']);
  });

  it('refuses an empty sheet', () => {
    expect(fileErrorsOf([])).toEqual(['The first sheet is empty.']);
  });
});

describe('spelled-out headers (the field names of spec 2.5 written as words)', () => {
  /** Every item field once, as the seed system's pages spell them ("Consignee Name"). */
  const spelledHeader: Cell[] = ['AWB Number', 'Tracking Number', 'Item Idempotency Key', 'Origin Country', 'Consignee Name', 'Consignee Address', 'Consignee City',
    'Consignee Province', 'Consignee Postal Code', 'Consignee Id Type', 'Consignee Id Number', 'Consignee Email', 'Item Description', 'Hs Code', 'Fob Value Usd',
    'Total Weight Kg', 'Amount Of Items', 'Amount Of Packages'];
  const row: Cell[] = ['H1', 'T1', 'line-1', 'cn', 'Ana Pérez', 'Av. Corrientes 1234', 'CABA', 'Buenos Aires', 'C1043', 'CUIL', '20-12345678-6', 'ana@example.com',
    'Cotton t-shirt', '6109.10.00', 12.5, 0.3, 2, 1];

  it('spells each field out as words: consigneeName is "Consignee Name"', () => {
    expect(spelledOut('consigneeName')).toBe('Consignee Name');
    expect(spelledOut('fobValueUsd')).toBe('Fob Value Usd');
    expect(spelledOut('Category')).toBe('Category');
  });

  it('converts a sheet written with spelled-out headers under every one of the seven slugs', () => {
    for (const slug of excelSlugs) {
      const [item] = itemsOf(sheet(spelledHeader, row), layoutFor(slug)!);
      expect(item, slug).toMatchObject({
        awbNumber: 'H1',
        trackingNumber: 'T1',
        originCountry: 'CN',
        consigneeName: 'Ana Pérez',
        consigneeIdNumber: '20123456786',
        fobValueUsd: 12.5,
        totalWeightKg: 0.3,
        amountOfItems: 2,
        hsCode: '6109.10.00',
      });
    }
  });

  it('reads a sheet that mixes the layout\'s own headers with spelled-out ones, the layout\'s own first', () => {
    const [item] = itemsOf(sheet(['Guía Hija', 'Destinatario', 'Consignee Name', 'Origin Country', 'Fob Value Usd'], ['H1', 'Own Name', 'Spelled Name', 'CN', 9]));
    expect(item).toMatchObject({ awbNumber: 'H1', consigneeName: 'Own Name', originCountry: 'CN', fobValueUsd: 9 });
  });

  it('keeps a field a layout makes from parts when the parts are there, and takes it whole when they are not', () => {
    const golucky = layoutFor('golucky')!;
    const fromParts = itemsOf(sheet(['Tracking Number', 'Consignee Name', 'Origin Country', 'Unit Price (USD)', 'Qty', 'Fob Value Usd'], ['T1', 'Ana', 'CN', 5, 3, 99]), golucky);
    expect(fromParts[0].fobValueUsd).toBe(15);
    const whole = itemsOf(sheet(['Tracking Number', 'Consignee Name', 'Origin Country', 'Fob Value Usd'], ['T1', 'Ana', 'CN', 99]), golucky);
    expect(whole[0].fobValueUsd).toBe(99);
  });

  it('still refuses camelCase JSON names, pointing to the default slug', () => {
    expect(fileErrorsOf(sheet(['awbNumber', 'consigneeName', 'originCountry'], ['H1', 'Ana', 'CN']))[0]).toContain('use the `default` slug for JSON field names');
  });
});

describe('spreadsheet rows in errors', () => {
  const rows = sheet([3, bfeHeader], [4, ['H1', 'Ana', 'CN', 1, 'ana@example.com']], [9, ['H2', 'Juan', 'CN', 1, 'not-an-email']]);

  it('maps an item index back to the spreadsheet row it came from', () => {
    const input = rowsToSubmission(bfe, rows, form);
    expect([spreadsheetRowOf(input, 0), spreadsheetRowOf(input, 1), spreadsheetRowOf(input, 2)]).toEqual([4, 9, undefined]);
  });

  it('prefixes item errors with the row and the column header as the sheet writes them', () => {
    const input = rowsToSubmission(bfe, rows, form);
    const res = v.safeParse(ManifestSubmission, input, { abortPipeEarly: true });
    const errors = res.success ? {} : fieldErrors(res.issues);
    expect(withSpreadsheetRows(errors, input)).toEqual({ 'items.1.consigneeEmail': ['Row 9, column "Email": Must be an e-mail address.'] });
  });

  it('leaves errors of a submission that did not come from a spreadsheet unchanged', () => {
    const errors = { 'items.0.consigneeEmail': ['Must be an e-mail address.'] };
    expect(withSpreadsheetRows(errors, { mawbNumber: 'x', items: [] })).toEqual(errors);
  });
});

describe('parseDecimal', () => {
  it.each([
    ['12,5', 12.5],
    ['1.234,56', 1234.56],
    ['1,234.56', 1234.56],
    ['1.234.567', 1234567],
    ['0.85', 0.85],
    [' 7 ', 7],
    ['U$S 1.500,00', 1500],
    ['2,5 kg', 2.5],
    ['-3', -3],
  ])('reads %j as %d', (text, expected) => {
    expect(parseDecimal(text)).toBe(expected);
  });

  it.each(['', 'abc', '12a', '1e5', '--1', ','])('reads %j as no number', (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });
});
