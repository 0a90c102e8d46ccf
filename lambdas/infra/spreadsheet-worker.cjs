/**
 * Reads the first sheet of an untrusted workbook, in a worker thread started by spreadsheet.ts.
 *
 * Plain CommonJS, like the parser it runs: sheetjs-style is sloppy-mode code (it assigns an
 * undeclared global), which an ES module, bundled or not, would run in strict mode. So the same
 * file runs under tsx, vitest and, bundled as CommonJS with sheetjs-style inside, beside a
 * Lambda's index.mjs (lib/bundling.ts). SheetJS 0.15 has published advisories for crafted files
 * (prototype pollution, ReDoS): whatever a file does happens in this thread's own realm, which
 * the parent terminates after one parse. Only arrays of primitives leave it, by structured clone.
 *
 * In (workerData): { bytes: Uint8Array, maxRows: number, maxColumns: number, maxExpandedBytes: number }
 * Out (one message): { ok: true, rows: Cell[][], rowNumbers: number[] }
 *                  | { ok: false, reason: 'password' | 'unreadable' | 'too_many_rows' | 'too_large_expanded' }
 * Cell: string | number | boolean | null. Dates stay Excel serial numbers (cellDates: false).
 * No 'use strict' here: in the bundle it would cover the parser too.
 */

const { parentPort, workerData } = require('node:worker_threads');
const zlib = require('node:zlib');
const XLSX = require('sheetjs-style');
// The ZIP reader SheetJS opens xlsx files with under Node (an old JSZip, `JSZipSync`): the same module.
const JSZipSync = require('sheetjs-style/jszip.js');

const { bytes, maxRows, maxColumns, maxExpandedBytes } = workerData;

/**
 * A zip bomb (a few hundred KB that unzip to gigabytes) is stopped while it inflates. JSZip
 * inflates a part when SheetJS reads it, and compares the result with the declared size only
 * afterwards; a sheet larger than V8's largest string was then dropped unread and the file
 * answered "The first sheet is empty.". Here every part is inflated by Node's zlib with its output
 * capped at what is left of one budget for the whole file (maxOutputLength: zlib stops with
 * ERR_BUFFER_TOO_LARGE), whatever sizes the file declares.
 */
let expanded = 0;
let overBudget = false;
JSZipSync.compressions.DEFLATE.uncompress = (input) => {
  try {
    const out = zlib.inflateRawSync(input, { maxOutputLength: Math.max(1, maxExpandedBytes - expanded) });
    expanded += out.length;
    return out;
  } catch (err) {
    if (err && err.code === 'ERR_BUFFER_TOO_LARGE') overBudget = true;
    throw err;
  }
};

parentPort.postMessage(readFirstSheet());

function readFirstSheet() {
  let workbook;
  try {
    workbook = XLSX.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      type: 'buffer',
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      cellText: false,
      cellDates: false,
      cellNF: false,
      sheetStubs: false,
      bookVBA: false,
      bookFiles: false,
      bookDeps: false,
      WTF: false,
      sheets: 0,
      // One row past the cap, so a sheet over it is told apart from one exactly at it.
      sheetRows: maxRows + 1,
    });
  } catch (err) {
    if (overBudget) return { ok: false, reason: 'too_large_expanded' };
    return { ok: false, reason: /password|encrypt/i.test(messageOf(err)) ? 'password' : 'unreadable' };
  }
  // The reader may swallow a part's failure and go on without it: the budget decides all the same.
  if (overBudget) return { ok: false, reason: 'too_large_expanded' };

  const names = Array.isArray(workbook.SheetNames) ? workbook.SheetNames : [];
  const sheet = names.length ? workbook.Sheets[names[0]] : undefined;
  if (!sheet || typeof sheet['!ref'] !== 'string') return { ok: true, rows: [], rowNumbers: [] };

  // SheetJS keeps the sheet's declared size in !fullref when sheetRows cut it short.
  const full = typeof sheet['!fullref'] === 'string' ? XLSX.utils.decode_range(sheet['!fullref']) : undefined;
  if (full && full.e.r >= maxRows) return { ok: false, reason: 'too_many_rows' };

  const range = XLSX.utils.decode_range(sheet['!ref']);
  range.e.c = Math.min(range.e.c, range.s.c + maxColumns - 1);
  range.e.r = Math.min(range.e.r, maxRows);
  // blankrows: true keeps every row of the range, so the index gives the sheet's row number;
  // blank rows are dropped below, after the number is known.
  const table = XLSX.utils.sheet_to_json(sheet, { header: 1, raw: true, defval: null, blankrows: true, range });

  const rows = [];
  const rowNumbers = [];
  for (let i = 0; i < table.length; i++) {
    const source = Array.isArray(table[i]) ? table[i] : [];
    const cells = [];
    let blank = true;
    for (let c = 0; c < source.length && c < maxColumns; c++) {
      const cell = primitive(source[c]);
      if (cell !== null && !(typeof cell === 'string' && cell.trim() === '')) blank = false;
      cells.push(cell);
    }
    if (blank) continue;
    const rowNumber = range.s.r + i + 1;
    if (rowNumber > maxRows) return { ok: false, reason: 'too_many_rows' };
    rows.push(cells);
    rowNumbers.push(rowNumber);
  }
  return { ok: true, rows, rowNumbers };
}

/** Only plain values leave the worker; error cells (#N/A), NaN and anything else become null. */
function primitive(value) {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return null;
}

function messageOf(err) {
  if (typeof err === 'string') return err;
  return err && typeof err.message === 'string' ? err.message : '';
}
