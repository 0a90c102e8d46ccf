import { createRequire } from 'node:module';
import { crc32, deflateRawSync } from 'node:zlib';
import { Zip, ZipDeflate, strFromU8, unzipSync, type ZipInputFile } from 'fflate';

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

/**
 * A zip bomb: a real .xlsx whose first sheet unzips to `expandedBytes` (blanks inside
 * <sheetData>), a few hundred KB on the wire. Deflated by Node's zlib, which takes a second for
 * 300 MB where a JavaScript deflate takes several.
 */
export function expandingWorkbook(expandedBytes: number): Buffer {
  const parts = unzipSync(workbook([['HAWB'], ['H1']]));
  const [head, tail] = strFromU8(parts[sheetPath]).split('<sheetData>');
  const before = Buffer.from(`${head}<sheetData>`);
  const sheet = Buffer.alloc(expandedBytes, 0x20);
  before.copy(sheet);
  Buffer.from(tail).copy(sheet, expandedBytes - Buffer.byteLength(tail));

  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    chunks.push(chunk);
  });
  for (const [name, data] of Object.entries(parts)) {
    if (name === sheetPath) continue;
    const part = new ZipDeflate(name);
    zip.add(part);
    part.push(data, true);
  }
  const member: ZipInputFile = { filename: sheetPath, size: sheet.length, crc: crc32(sheet), compression: 8 };
  zip.add(member);
  member.ondata!(null, deflateRawSync(sheet, { level: 9 }), true);
  zip.end();
  return Buffer.concat(chunks);
}

const sheetPath = 'xl/worksheets/sheet1.xml';
