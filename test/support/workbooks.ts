import { createRequire } from 'node:module';

/** sheetjs-style's writer (the same library the service reads with), to build real workbooks in tests. */
export const XLSX = createRequire(import.meta.url)('sheetjs-style') as typeof import('sheetjs-style');

export type SheetRows = readonly (readonly (string | number | boolean | null)[])[];

/** A real .xlsx (or .xls, BIFF8) file whose first sheet holds `rows`, row 1 first. */
export function workbook(rows: SheetRows, opts: { bookType?: 'xlsx' | 'xls'; sheetName?: string; extraSheets?: Record<string, SheetRows> } = {}): Buffer {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows.map((r) => [...r])), opts.sheetName ?? 'Manifiesto');
  for (const [name, extra] of Object.entries(opts.extraSheets ?? {})) XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(extra.map((r) => [...r])), name);
  const bookType = opts.bookType ?? 'xlsx';
  return XLSX.write(book, { type: 'buffer', bookType: bookType === 'xls' ? 'biff8' : 'xlsx', compression: true }) as Buffer;
}
