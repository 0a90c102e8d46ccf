import { once } from 'node:events';
import { createDeflateRaw, crc32, type DeflateRaw } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';

/**
 * Writes an xlsx workbook as a stream: the workbook is a zip of XML parts, and each sheet's XML
 * is produced row by row straight into the zip, so memory holds a few rows and the compressor's
 * window, never the sheet. sheetjs-style builds the whole workbook in memory (a cell object per
 * cell: 2 million for 100,000 products) and has no streaming writer.
 *
 * The zip is fflate's streaming `Zip` (no dependencies, 8 kB, typed, widely used); each entry is
 * deflated by Node's zlib (`ThreadedDeflate`), which compresses in libuv's thread pool, so the
 * compression of one batch of rows runs on another core while the next batch's XML is written.
 * Strings are inline (no shared-strings table, which would have to hold every distinct string).
 */
export type Cell = string | number | null;

export interface SheetColumn {
  header: string;
  /** In characters. */
  width: number;
  /** Numbers shown with 2 decimals. */
  money?: boolean;
}

export interface Sheet {
  name: string;
  /** A table: a bold, filled header row frozen at the top, column widths and money formats. Without columns, plain rows. */
  columns?: readonly SheetColumn[];
  rows: AsyncIterable<readonly Cell[]> | Iterable<readonly Cell[]>;
}

const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const officeRels = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const packageRels = 'http://schemas.openxmlformats.org/package/2006/relationships';
const xmlHead = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Cell styles (cellXfs of styles.xml): 0 plain, 1 header (bold white on dark blue, centred), 2 money (built-in format 2, `0.00`). */
const style = { header: 1, money: 2 } as const;

const stylesXml =
  `${xmlHead}<styleSheet xmlns="${main}">` +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><color rgb="FFFFFFFF"/><name val="Calibri"/></font></fonts>' +
  '<fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FF1F4E78"/><bgColor indexed="64"/></patternFill></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="0" fontId="1" fillId="2" borderId="0" xfId="0" applyFont="1" applyFill="1" applyAlignment="1"><alignment horizontal="center"/></xf>' +
  '<xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>';

function packageXml(sheets: readonly Sheet[]): [string, string][] {
  const sheetType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';
  return [
    [
      '[Content_Types].xml',
      `${xmlHead}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        sheets.map((_, n) => `<Override PartName="/xl/worksheets/sheet${n + 1}.xml" ContentType="${sheetType}"/>`).join('') +
        '</Types>',
    ],
    ['_rels/.rels', `${xmlHead}<Relationships xmlns="${packageRels}"><Relationship Id="rId1" Type="${officeRels}/officeDocument" Target="xl/workbook.xml"/></Relationships>`],
    [
      'xl/workbook.xml',
      `${xmlHead}<workbook xmlns="${main}" xmlns:r="${officeRels}"><sheets>` +
        sheets.map((s, n) => `<sheet name="${escapeXml(s.name)}" sheetId="${n + 1}" r:id="rId${n + 1}"/>`).join('') +
        '</sheets></workbook>',
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${xmlHead}<Relationships xmlns="${packageRels}">` +
        sheets.map((_, n) => `<Relationship Id="rId${n + 1}" Type="${officeRels}/worksheet" Target="worksheets/sheet${n + 1}.xml"/>`).join('') +
        `<Relationship Id="rId${sheets.length + 1}" Type="${officeRels}/styles" Target="styles.xml"/></Relationships>`,
    ],
    ['xl/styles.xml', stylesXml],
  ];
}

/** XML 1.0 cannot carry control characters other than tab, LF and CR at all, not even escaped: they are dropped. */
const notXmlChar = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

const needsEscape = /[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

function escapeXml(s: string): string {
  if (!needsEscape.test(s)) return s; // most cells: 2 million of them for 100,000 products
  return s.replace(notXmlChar, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Excel's column width for a number of characters of its default font (7 pixels wide, 5 of padding). */
const excelWidth = (chars: number) => Math.trunc(((chars * 7 + 5) / 7) * 256) / 256;

const columnNames: string[] = [];

/** A, B, ..., Z, AA, ... for column 0, 1, ... */
function columnName(n: number): string {
  if (columnNames[n]) return columnNames[n];
  let name = '';
  for (let k = n + 1; k > 0; k = Math.floor((k - 1) / 26)) name = String.fromCharCode(65 + ((k - 1) % 26)) + name;
  return (columnNames[n] = name);
}

function cellXml(ref: string, value: Cell, styleId: number): string {
  const s = styleId ? ` s="${styleId}"` : '';
  if (typeof value === 'number') return Number.isFinite(value) ? `<c r="${ref}"${s}><v>${value}</v></c>` : '';
  if (value === null) return '';
  const space = /^\s|\s$/.test(value) ? ' xml:space="preserve"' : '';
  return `<c r="${ref}"${s} t="inlineStr"><is><t${space}>${escapeXml(value)}</t></is></c>`;
}

function rowXml(r: number, cells: readonly Cell[], styleOf: (c: number, value: Cell) => number): string {
  let xml = `<row r="${r}">`;
  cells.forEach((value, c) => (xml += cellXml(columnName(c) + r, value, styleOf(c, value))));
  return xml + '</row>';
}

/** Text batched to about this many characters before it goes to the compressor. */
const batchChars = 64 * 1024;

async function* sheetXml(sheet: Sheet): AsyncGenerator<string> {
  const columns = sheet.columns;
  let xml = `${xmlHead}<worksheet xmlns="${main}" xmlns:r="${officeRels}">`;
  if (columns) {
    xml +=
      '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/></sheetView></sheetViews>' +
      '<cols>' +
      columns.map((col, c) => `<col min="${c + 1}" max="${c + 1}" width="${excelWidth(col.width)}" customWidth="1"/>`).join('') +
      '</cols>';
  }
  xml += '<sheetData>';
  let r = 1;
  if (columns) xml += rowXml(r++, columns.map((col) => col.header), () => style.header);
  const moneyStyle = (c: number, value: Cell) => (columns?.[c]?.money && typeof value === 'number' ? style.money : 0);
  for await (const cells of sheet.rows) {
    xml += rowXml(r++, cells, moneyStyle);
    if (xml.length >= batchChars) {
      yield xml;
      xml = '';
    }
  }
  yield xml + '</sheetData></worksheet>';
}

/**
 * Deflate level 3, not zlib's default 6: measured on 20,000 rows of sheet XML (6.6 MB), level 6
 * took 640-720 ms for 0.77 MB, level 3 320-350 ms for 0.83 MB (level 1: 250-460 ms, 0.96 MB).
 * Workbooks are written once per run at its finish, so half the CPU for 8% more bytes.
 */
const deflateLevel = 3;

/**
 * A zip entry deflated by node:zlib instead of fflate's `ZipDeflate`, which compresses on the
 * calling thread: zlib runs each write in libuv's thread pool, so at a run's finish (one process
 * on the twin, the function's vCPUs in AWS) the workbook's compression no longer waits its turn
 * behind the XML. Same format: raw deflate, CRC-32 and size of the uncompressed bytes (fflate
 * writes them in the entry's data descriptor once the final chunk is in).
 */
class ThreadedDeflate implements ZipInputFile {
  readonly compression = 8;
  /** The general-purpose flag's bits 1-2 for the level (APPNOTE 4.4.4: 2 = fast), as fflate sets them. */
  readonly flag = 2;
  crc = 0;
  size = 0;
  /**
   * Set by fflate's Zip. Wider than fflate's `AsyncFlateStreamHandler` in what it takes, as fflate's
   * own streams call it: on an error, the error (zlib's, not a FlateError) and no data.
   */
  ondata: (err: Error | null, data: Uint8Array | null, final: boolean) => void = () => {};
  private readonly stream: DeflateRaw;
  readonly ended: Promise<void>;

  constructor(readonly filename: string) {
    this.stream = createDeflateRaw({ level: deflateLevel });
    this.stream.on('data', (chunk: Buffer<ArrayBuffer>) => this.ondata(null, chunk, false));
    this.ended = new Promise((resolve, reject) => {
      this.stream.once('end', () => {
        this.ondata(null, new Uint8Array(0), true);
        resolve();
      });
      this.stream.once('error', (err) => {
        this.ondata(err, null, true);
        reject(err);
      });
    });
    this.ended.catch(() => undefined);
  }

  /** Writes uncompressed bytes; waits while zlib's buffer is full, so memory holds a few batches. */
  async write(bytes: Uint8Array): Promise<void> {
    this.crc = crc32(bytes, this.crc);
    this.size += bytes.length;
    if (!this.stream.write(bytes)) await Promise.race([once(this.stream, 'drain'), this.ended]);
  }

  /** Drops the entry's compressor (a row source failed). */
  destroy(): void {
    this.stream.destroy();
  }

  /** Ends the entry and waits until its last compressed byte went to the zip. */
  async end(): Promise<void> {
    this.stream.end();
    await this.ended;
  }
}

/** The workbook's bytes, in the order of its zip, as they are produced. */
export async function* xlsxWorkbook(sheets: readonly Sheet[]): AsyncGenerator<Uint8Array> {
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((err, chunk) => (err ? (failure = err) : ready.push(chunk)));
  const taken = () => {
    if (failure) throw failure;
    return ready.splice(0);
  };
  const encoder = new TextEncoder();
  const parts: [string, AsyncIterable<string> | Iterable<string>][] = [
    ...packageXml(sheets).map(([name, xml]): [string, string[]] => [name, [xml]]),
    ...sheets.map((sheet, n): [string, AsyncIterable<string>] => [`xl/worksheets/sheet${n + 1}.xml`, sheetXml(sheet)]),
  ];
  // One entry at a time: the zip holds back an entry's data until the entries before it are done.
  for (const [name, texts] of parts) {
    const entry = new ThreadedDeflate(name);
    zip.add(entry);
    try {
      for await (const text of texts) {
        await entry.write(encoder.encode(text));
        yield* taken();
      }
    } catch (err) {
      entry.destroy();
      throw err;
    }
    await entry.end();
    yield* taken();
  }
  zip.end();
  yield* taken();
}
