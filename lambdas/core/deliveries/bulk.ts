/**
 * A day's deliveries in bulk: a CSV with one row per AWB and a ZIP of their files. Checked whole
 * before anything is written: one bad row, entry or file refuses the import, naming it
 * (`rows[3].recipient_dni`, `zip`), so the import is all or nothing.
 */
import { unzipSync } from 'fflate';
import * as v from 'valibot';
import { argentineDay } from '../customs/argentine-calendar';
import { emptyFieldErrors, type FieldErrors } from '../errors';
import { DeliveryFields, proofFileProblem, type DeliveryInput, maxProofFileBytes } from './proof';

export const maxBulkCsvBytes = 1024 * 1024;
export const maxBulkZipBytes = 50 * 1024 * 1024;
export const maxBulkRows = 500;
/** What the ZIP may expand to in all: its entries are at most 4 MB each, and the rows at most 500. */
export const maxBulkExpandedBytes = 200 * 1024 * 1024;
/** Images and PDFs barely compress; an entry that claims to expand more than this is a bomb. */
export const maxCompressionRatio = 100;

export const bulkColumns = ['awb_number', 'delivered_at', 'recipient_name', 'recipient_dni', 'recipient_relation', 'latitude', 'longitude', 'address', 'file'] as const;
const requiredColumns = ['awb_number', 'delivered_at', 'recipient_name', 'recipient_dni', 'recipient_relation', 'file'];

export interface BulkRow {
  /** 1-based, the header not counted: the row a spreadsheet shows as `row + 1`. */
  row: number;
  input: DeliveryInput;
  file: string;
}

/** RFC 4180 CSV (commas, double quotes, CRLF or LF); undefined when a quote is left open. */
export function parseCsv(text: string): string[][] | undefined {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell), (cell = '');
      rows.push(row), (row = []);
    } else cell += c;
  }
  if (quoted) return undefined;
  if (cell !== '' || row.length) row.push(cell), rows.push(row);
  return rows.filter((r) => !(r.length === 1 && r[0].trim() === ''));
}

/**
 * The CSV's rows as deliveries of `day` (the Argentine calendar day each `delivered_at` must fall
 * on), or every problem found, by row and column.
 */
export function readBulkCsv(bytes: Uint8Array, day: string): { rows: BulkRow[] } | { errors: FieldErrors } {
  const errors = emptyFieldErrors();
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (bytes.length > maxBulkCsvBytes) return { errors: { csv: [`Must be at most ${maxBulkCsvBytes / 1024 / 1024} MB.`] } };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return { errors: { csv: ['Must be UTF-8 text.'] } };
  }
  const table = parseCsv(text);
  if (!table) return { errors: { csv: ['A quoted value is never closed.'] } };
  const [header, ...body] = table;
  if (!header) return { errors: { csv: ['Is empty: a header row and at least one delivery are needed.'] } };
  const columns = header.map((h) => h.trim().toLowerCase());
  const missing = requiredColumns.filter((c) => !columns.includes(c));
  const unknown = columns.filter((c) => !(bulkColumns as readonly string[]).includes(c));
  if (missing.length) add('csv', `Missing columns: ${missing.join(', ')}.`);
  if (unknown.length) add('csv', `Unknown columns: ${unknown.join(', ')} (the columns are ${bulkColumns.join(', ')}).`);
  if (new Set(columns).size !== columns.length) add('csv', 'A column is named twice.');
  if (!body.length) add('csv', 'Has no delivery rows.');
  if (body.length > maxBulkRows) add('csv', `At most ${maxBulkRows} rows per import; split the day in parts.`);
  if (Object.keys(errors).length) return { errors };

  const rows: BulkRow[] = [];
  const seen = new Map<string, number>();
  body.forEach((cells, i) => {
    const n = i + 1;
    const at = (field: string) => `rows[${n}].${field}`;
    if (cells.length !== columns.length) return add(`rows[${n}]`, `Has ${cells.length} values for ${columns.length} columns.`);
    const raw: Record<string, string> = Object.create(null);
    columns.forEach((c, j) => (raw[c] = cells[j]));
    const num = (s: string | undefined) => (s === undefined || s.trim() === '' ? undefined : /^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s);
    const candidate = {
      awb_number: raw.awb_number,
      delivered_at: raw.delivered_at?.trim(),
      recipient_name: raw.recipient_name,
      recipient_dni: raw.recipient_dni,
      recipient_relation: raw.recipient_relation,
      latitude: num(raw.latitude),
      longitude: num(raw.longitude),
      address: raw.address?.trim() ? raw.address : undefined,
    };
    // An AWB given twice is named on its second row, whatever else is wrong with the first.
    const awb = raw.awb_number?.trim() ?? '';
    const earlier = awb ? seen.get(awb) : undefined;
    if (earlier !== undefined) add(at('awb_number'), `Is also on row ${earlier}: one proof per AWB.`);
    else if (awb) seen.set(awb, n);
    const parsed = v.safeParse(DeliveryFields, candidate);
    if (!parsed.success) {
      for (const issue of parsed.issues) add(at(v.getDotPath(issue) ?? 'row'), issue.message);
      return;
    }
    if (argentineDay(parsed.output.delivered_at) !== day) add(at('delivered_at'), `Must fall on ${day} (Argentine time), the day of this import.`);
    const file = raw.file?.trim() ?? '';
    if (!file) add(at('file'), 'Must name the entry of the ZIP that holds the proof.');
    rows.push({ row: n, input: parsed.output, file });
  });
  return Object.keys(errors).length ? { errors } : { rows };
}

/** Why an entry name cannot be used, or undefined: relative, no `..`, no backslash, no drive. */
export function zipEntryNameProblem(name: string): string | undefined {
  if (!name || name.length > 255) return 'has an empty or over-long name';
  if (name.includes('\\') || name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.split('/').some((s) => s === '..' || s === '.')) {
    return 'leaves its folder (an absolute path, `..` or a backslash)';
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'has control characters in its name';
  return undefined;
}

/**
 * The ZIP's files by entry name, read only after every entry's declared sizes were checked (at most
 * 4 MB each, 200 MB in all, compressed at most 100:1): a bomb or a path that leaves its folder is
 * refused before anything is expanded; an entry whose data lies about its size expands to at most
 * the size it declared (fflate writes into a buffer of that size).
 */
export function readBulkZip(bytes: Uint8Array): { files: Map<string, Uint8Array> } | { errors: FieldErrors } {
  if (bytes.length > maxBulkZipBytes) return { errors: { zip: [`Must be at most ${maxBulkZipBytes / 1024 / 1024} MB.`] } };
  const problems: string[] = [];
  let expanded = 0;
  let entries = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        entries++;
        if (f.name.endsWith('/')) return false;
        const bad = zipEntryNameProblem(f.name);
        if (bad) problems.push(`Entry ${JSON.stringify(f.name.slice(0, 100))} ${bad}.`);
        if (f.originalSize > maxProofFileBytes) problems.push(`Entry ${JSON.stringify(f.name)} expands to over ${maxProofFileBytes / 1024 / 1024} MB.`);
        if (f.size > 0 && f.originalSize / f.size > maxCompressionRatio) problems.push(`Entry ${JSON.stringify(f.name)} is compressed more than ${maxCompressionRatio}:1 (a ZIP bomb?).`);
        if (f.compression !== 0 && f.compression !== 8) problems.push(`Entry ${JSON.stringify(f.name)} uses a compression other than stored or deflate.`);
        expanded += f.originalSize;
        if (entries > maxBulkRows * 2) problems.push(`Holds more than ${maxBulkRows * 2} entries.`);
        // Nothing is expanded once something is wrong.
        return problems.length === 0 && expanded <= maxBulkExpandedBytes;
      },
    });
  } catch {
    return { errors: { zip: ['Is not a ZIP archive this service can read.'] } };
  }
  if (expanded > maxBulkExpandedBytes) problems.push(`Expands to over ${maxBulkExpandedBytes / 1024 / 1024} MB.`);
  if (problems.length) return { errors: { zip: [...new Set(problems)].slice(0, 20) } };
  const out = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(files)) out.set(name, data);
  return { files: out };
}

/** Every row's file, found in the ZIP and checked by its bytes; or the rows whose file is wrong. */
export function matchFiles(rows: BulkRow[], files: Map<string, Uint8Array>): { errors?: FieldErrors } {
  const errors = emptyFieldErrors();
  for (const r of rows) {
    const data = files.get(r.file);
    if (!data) {
      errors[`rows[${r.row}].file`] = [`The ZIP has no entry ${JSON.stringify(r.file)}.`];
      continue;
    }
    const problem = proofFileProblem(data);
    if (problem) errors[`rows[${r.row}].file`] = [`${r.file}: ${problem}`];
  }
  return Object.keys(errors).length ? { errors } : {};
}
