import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError, ValidationFailed } from '#core/errors';
import { defaultMaxHeapMb, liveSpreadsheetWorkers, readSheetRows, spreadsheetLimits, type ReadSheetOptions } from '#infra/spreadsheet';
import { pdf } from '#support/files';
import { expandingWorkbook, workbook, XLSX } from '#support/workbooks';

const fixtureWorker = (name: string) => new URL(`../../support/workers/${name}`, import.meta.url);

/** The 422 body's `file` messages of a failed read; fails the test if the read succeeds or fails otherwise. */
async function fileErrorsOf(bytes: Uint8Array, opts?: ReadSheetOptions): Promise<string[]> {
  const err = await readSheetRows(bytes, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationFailed);
  const failed = err as ValidationFailed;
  expect(failed.status).toBe(422);
  expect(Object.keys(failed.errors)).toEqual(['file']);
  return failed.errors.file;
}

const prototypeKeys = () => ({ object: Object.getOwnPropertyNames(Object.prototype).sort(), array: Object.getOwnPropertyNames(Array.prototype).sort() });

/** A manifest-like sheet of `n` rows. */
const bigSheet = (n: number) => [
  ['Guía Hija', 'Destinatario', 'Descripción', 'Domicilio', 'Valor FOB USD', 'Peso Kg', 'País Origen'],
  ...Array.from({ length: n }, (_, i) => [`HAWB${i}`, `Destinatario número ${i}`, `Artículo de prueba ${i} con una descripción larga`, `Calle ${i} 1234`, i + 0.5, 1.25, 'CN']),
];

/** A small file whose sheet still reaches down to `lastRow`: a header, one item, one cell far below. */
function sparseSheet(lastRow: number): Buffer {
  const sheet = XLSX.utils.aoa_to_sheet([['HAWB'], ['H1']]);
  XLSX.utils.sheet_add_aoa(sheet, [['far below']], { origin: `A${lastRow}` });
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Manifiesto');
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

let huge: Buffer | undefined;
/** 20,000 rows: seconds of parsing and more than 32 MB of heap; built once. */
const hugeWorkbook = () => (huge ??= workbook(bigSheet(20_000)));

describe('readSheetRows', () => {
  afterEach(() => expect(liveSpreadsheetWorkers()).toBe(0));

  it('returns the first sheet as rows of plain values with their spreadsheet row numbers, blank rows left out', async () => {
    const bytes = workbook(
      [['Guía Hija', 'Destinatario', 'Valor FOB USD', 'Con seguro'], [], ['H1', 'Ana Pérez', 12.5, true], [null, '  ', null, null], ['H2', 'José Gómez', 7, false]],
      { extraSheets: { Otra: [['not read']] } },
    );
    await expect(readSheetRows(bytes)).resolves.toEqual([
      { row: 1, cells: ['Guía Hija', 'Destinatario', 'Valor FOB USD', 'Con seguro'] },
      { row: 3, cells: ['H1', 'Ana Pérez', 12.5, true] },
      { row: 5, cells: ['H2', 'José Gómez', 7, false] },
    ]);
  });

  it('reads a legacy .xls workbook the same way', async () => {
    const bytes = workbook([['HAWB', 'Peso'], ['H1', 2.5]], { bookType: 'xls' });
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]));
    await expect(readSheetRows(bytes)).resolves.toEqual([
      { row: 1, cells: ['HAWB', 'Peso'] },
      { row: 2, cells: ['H1', 2.5] },
    ]);
  });

  it('gives dates as Excel serial numbers', async () => {
    const rows = await readSheetRows(workbook([['Fecha'], [new Date(Date.UTC(2026, 0, 15)) as unknown as string]]));
    expect(rows[1].cells[0]).toBeCloseTo(46037, 0);
  });

  it('reads a sheet whose last row is the last row allowed', async () => {
    const rows = await readSheetRows(sparseSheet(spreadsheetLimits.maxRows));
    expect(rows.map((r) => r.row)).toEqual([1, 2, spreadsheetLimits.maxRows]);
  });

  it('refuses a sheet that uses more rows than allowed with a 422 on file', async () => {
    expect(await fileErrorsOf(sparseSheet(spreadsheetLimits.maxRows + 1))).toEqual([
      'The first sheet has more than 100,010 rows. Split the manifest into several files.',
    ]);
  });

  it('refuses a file that is not a workbook with a 422 on file, without starting a worker', async () => {
    expect(await fileErrorsOf(pdf())).toEqual(['The file is not an Excel workbook (.xlsx, .xlsm or .xls).']);
  });

  it('refuses an empty file with a 422 on file', async () => {
    expect(await fileErrorsOf(new Uint8Array(0))).toEqual(['The file is empty.']);
  });

  it('answers a ZIP that is no workbook with a 422 on file', async () => {
    const zipHeaderThenJunk = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(200, 7)]);
    expect((await fileErrorsOf(zipHeaderThenJunk))[0]).toMatch(/could not be read as an Excel workbook/);
  });

  it('reads a workbook with __proto__ and constructor headers and sheet name as plain data, leaving the prototypes alone', async () => {
    const before = prototypeKeys();
    const bytes = workbook(
      [['__proto__', 'constructor', 'prototype', 'hasOwnProperty'], ['{"polluted":"yes"}', 'x', 'y', 'z']],
      { sheetName: '__proto__', extraSheets: { constructor: [['__proto__']] } },
    );
    const rows = await readSheetRows(bytes);
    expect(rows.map((r) => r.cells)).toEqual([
      ['__proto__', 'constructor', 'prototype', 'hasOwnProperty'],
      ['{"polluted":"yes"}', 'x', 'y', 'z'],
    ]);
    expect(prototypeKeys()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps prototype pollution inside the worker: the main process stays clean and gets plain rows', async () => {
    const before = prototypeKeys();
    const rows = await readSheetRows(workbook([['x']]), { workerUrl: fixtureWorker('polluting-worker.mjs') });
    expect(rows).toEqual([{ row: 1, cells: ['Guía Hija', 'Destinatario'] }]);
    expect(prototypeKeys()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('refuses an answer from the worker whose cells are not plain values', async () => {
    const before = prototypeKeys();
    expect((await fileErrorsOf(workbook([['x']]), { workerUrl: fixtureWorker('hostile-worker.mjs') }))[0]).toMatch(/could not be read/);
    expect(prototypeKeys()).toEqual(before);
  });

  it('ends a parse that needs more than the heap limit as a 422 on file, while a small workbook fits the same limit', async () => {
    await expect(readSheetRows(workbook(bigSheet(10)), { maxHeapMb: 32 })).resolves.toHaveLength(11);
    const errors = await fileErrorsOf(hugeWorkbook(), { maxHeapMb: 32 });
    expect(errors).toEqual(['The workbook needs more memory to read than allowed. Split it into smaller files.']);
  });

  it('refuses a zip bomb, a sheet that unzips past the limit, with a 422 on file saying it is too large when expanded', async () => {
    const bomb = expandingWorkbook((spreadsheetLimits.maxExpandedMb + 44) * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const started = Date.now();
    expect(await fileErrorsOf(bomb)).toEqual(['The workbook is too large when expanded: its contents unzip to more than 256 MB. Split it into smaller files.']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('reads a workbook that unzips to well under the limit', async () => {
    await expect(readSheetRows(expandingWorkbook(10 * 1024 * 1024))).resolves.toEqual([
      { row: 1, cells: ['HAWB'] },
      { row: 2, cells: ['H1'] },
    ]);
  });

  it('ends a parse that exceeds the time limit as a 422 on file', async () => {
    const errors = await fileErrorsOf(hugeWorkbook(), { timeoutMs: 100 });
    expect(errors).toEqual(['Reading the workbook took longer than 0.1 s. Split it into smaller files.']);
  });

  it('stops a worker stuck in a catastrophic regular expression at the time limit', async () => {
    const started = Date.now();
    const errors = await fileErrorsOf(workbook([['x']]), { workerUrl: fixtureWorker('busy-worker.mjs'), timeoutMs: 300 });
    expect(errors[0]).toMatch(/took longer than 0.3 s/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('runs one worker per parse and ends it before answering, after a success and after a failure', async () => {
    const parse = readSheetRows(workbook([['HAWB'], ['H1']]));
    expect(liveSpreadsheetWorkers()).toBe(1);
    await parse;
    expect(liveSpreadsheetWorkers()).toBe(0);
    await fileErrorsOf(workbook(bigSheet(10)), { timeoutMs: 1 });
    expect(liveSpreadsheetWorkers()).toBe(0);
  });

  it('caps the worker heap at half the Lambda function\'s memory, and at 512 MB', () => {
    const saved = process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;
    try {
      process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE = '256';
      expect(defaultMaxHeapMb()).toBe(128);
      process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE = '3008';
      expect(defaultMaxHeapMb()).toBe(512);
      delete process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;
      expect(defaultMaxHeapMb()).toBe(512);
    } finally {
      if (saved === undefined) delete process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;
      else process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE = saved;
    }
  });

  it('answers 500, not 422, when the worker script is missing from the build', async () => {
    const err = await readSheetRows(workbook([['x']]), { workerUrl: fixtureWorker('no-such-worker.mjs') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).not.toBeInstanceOf(ValidationFailed);
    expect((err as ServiceError).status).toBe(500);
  });
});
