import { ValidationFailed, emptyFieldErrors, type FieldErrors } from '#core/errors';
import type { Cell, Row } from './rows';
import { ManifestItem, ManifestSubmission } from '../submission';
import type { Conversion, ExcelLayout, ItemField, LayoutColumn } from './layout';

/**
 * Turns the rows of a partner's workbook into the manifest submission of spec 2.5, by the
 * partner's layout. Pure: the result is the same input object a JSON client would send, and the
 * ManifestSubmission schema validates it afterwards, so both paths share every rule.
 */

/** Manifest root fields, sent as form fields next to the file. */
export const formFields = ['mawbNumber', 'manifestNumber', 'batchId', 'airline', 'flightNumber', 'aircraftRegistration', 'originAirport', 'customsBrokerCode'] as const;

/**
 * The JSON field names of spec 2.5 that no person would type as a header: the camelCase ones
 * (`consigneeName`, `awbNumber`). Single words such as `Category` or `airline` are ordinary headers.
 */
const jsonFieldNames = new Map(
  [...Object.keys(ManifestItem.pipe[0].entries), ...Object.keys(ManifestSubmission.pipe[0].entries)]
    .filter((name) => /^[a-z_]+[A-Z]/.test(name))
    .map((name) => [name.toLowerCase(), name]),
);

/**
 * A field name of spec 2.5 written out as words, as the seed system's developer pages say Excel
 * slugs read headers: `consigneeName` -> "Consignee Name", `fobValueUsd` -> "Fob Value Usd",
 * `awbNumber` -> "Awb Number" (which matches "AWB Number": headers compare normalized).
 */
export function spelledOut(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(' ')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}

/**
 * Every item field of spec 2.5 under its spelled-out header. Every slug reads these beside its
 * layout's own headers: a field the layout's own columns fill (directly or combined from parts)
 * keeps them, and the spelled-out column fills the fields they leave empty, so a sheet may mix both.
 */
const spelledOutColumns: readonly LayoutColumn[] = Object.keys(ManifestItem.pipe[0].entries).map((field) => ({
  headers: [spelledOut(field)],
  field: field as ItemField,
}));

/** Header text as compared: no accents, no case, nothing but letters and digits ("Peso (Kg)" = "PESO KG"). */
export function normalizeHeader(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

const fileError = (message: string) => new ValidationFailed({ file: [message] });

const isBlank = (cell: Cell | undefined) => cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');

const cellText = (cell: Cell) => (typeof cell === 'string' ? cell.trim() : String(cell));

const numberFields = new Set<ItemField>(['fobValueUsd', 'totalWeightKg', 'totalVolumetricWeightKg', 'amountOfItems', 'amountOfPackages']);

function conversionOf(column: LayoutColumn): Conversion {
  if (column.as) return column.as;
  if (column.field && numberFields.has(column.field)) return 'number';
  if (column.field === 'consigneeIdNumber') return 'digits';
  if (column.field === 'originCountry') return 'country';
  return 'text';
}

/**
 * A number typed as text: a comma or a dot as decimal mark, the other one (or several of the
 * same) as thousands separator, an optional currency or unit around it. Undefined if it is not one.
 */
export function parseDecimal(text: string): number | undefined {
  const s = text
    .replace(/[\s\u00a0]/g, '')
    .replace(/^(?:US\$|U\$S|USD|\$)/i, '')
    .replace(/(?:USD|kg|g)$/i, '');
  if (!/^[-+]?[\d.,]*\d[\d.,]*$/.test(s)) return undefined;
  const dots = s.split('.').length - 1;
  const commas = s.split(',').length - 1;
  let plain: string;
  if (dots && commas) {
    const decimal = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
    plain = s.replaceAll(decimal === '.' ? ',' : '.', '').replace(decimal, '.');
  } else if (commas) {
    plain = commas === 1 ? s.replace(',', '.') : s.replaceAll(',', '');
  } else {
    plain = dots === 1 ? s : s.replaceAll('.', '');
  }
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)$/.test(plain)) return undefined;
  return Number(plain);
}

/** Floating-point noise off (19.99 * 3), without rounding real precision away. */
const tidy = (n: number) => Math.round(n * 1e6) / 1e6;

/** A cell as the field's value; undefined leaves the field out. Unreadable numbers pass as text for the schema to name. */
function convert(cell: Cell, as: Conversion): string | number | boolean | undefined {
  if (cell === null || isBlank(cell)) return undefined;
  switch (as) {
    case 'text':
      return cellText(cell);
    case 'upper':
    case 'country':
      return cellText(cell).toUpperCase();
    case 'digits':
      return typeof cell === 'string' ? cell.replace(/[\s.\-/]/g, '') || undefined : String(cell);
    case 'number':
      return typeof cell === 'string' ? (parseDecimal(cell) ?? cell.trim()) : cell;
    case 'grams': {
      const grams = typeof cell === 'string' ? parseDecimal(cell) : cell;
      return typeof grams === 'number' ? tidy(grams / 1000) : typeof cell === 'string' ? cell.trim() : cell;
    }
  }
}

interface HeaderMatch {
  /** Index of the header row among the rows. */
  index: number;
  /** Each matched column with its cell index and its header as written in the sheet. */
  columns: { column: LayoutColumn; at: number; header: string }[];
}

function matchColumns(layout: ExcelLayout, cells: readonly Cell[]): HeaderMatch['columns'] {
  const positions = new Map<string, number>();
  cells.forEach((cell, at) => {
    if (isBlank(cell)) return;
    const key = normalizeHeader(cellText(cell));
    if (!positions.has(key)) positions.set(key, at);
  });
  const out: HeaderMatch['columns'] = [];
  for (const column of layout.columns) {
    const at = column.headers.map((h) => positions.get(normalizeHeader(h))).find((i) => i !== undefined);
    if (at !== undefined) out.push({ column, at, header: cellText(cells[at]) });
  }
  // The spelled-out headers fill what the layout's own columns leave: a field none of them fills,
  // and none of them makes from parts, from a cell none of them took.
  const taken = new Set(out.map((m) => m.at));
  const filled = new Set(out.flatMap((m) => (m.column.field ? [m.column.field] : [])));
  const matchedParts = new Set(out.flatMap((m) => (m.column.part ? [m.column.part] : [])));
  for (const c of layout.combine ?? []) if (c.parts.some((p) => matchedParts.has(p))) filled.add(c.field);
  for (const column of spelledOutColumns) {
    const at = positions.get(normalizeHeader(column.headers[0]));
    if (at === undefined || taken.has(at) || filled.has(column.field!)) continue;
    out.push({ column, at, header: cellText(cells[at]) });
    taken.add(at);
  }
  return out;
}

const namesOf = (column: LayoutColumn) => [column.field, column.part].filter((n): n is string => n !== undefined);

const isSpelledOut = new Set(spelledOutColumns);

/**
 * The spelled-out names follow spec 2.5's rules under every slug: an item is keyed by awbNumber
 * or, when that is absent, by trackingNumber, so a spelled-out "AWB Number" or "Tracking Number"
 * meets a layout's need for either (a partner's own headers keep the partner's rule).
 */
const itemKeyFields = ['awbNumber', 'trackingNumber'];
const spelledOutMeets = (field: string) => (itemKeyFields.includes(field) ? itemKeyFields : [field]);

const namesMet = (column: LayoutColumn) => (isSpelledOut.has(column) ? spelledOutMeets(column.field!) : namesOf(column));

/**
 * A required group is met by one of its names, or by the field its parts make given whole (a
 * spelled-out "Fob Value Usd" meets a layout that needs a unit price to make fobValueUsd).
 */
const groupNames = (layout: ExcelLayout, group: readonly string[]) => [
  ...group,
  ...(layout.combine ?? []).filter((c) => c.parts.some((p) => group.includes(p))).map((c) => c.field),
];

function missingGroups(layout: ExcelLayout, matched: HeaderMatch['columns']): (readonly string[])[] {
  const present = new Set(matched.flatMap((m) => namesMet(m.column)));
  return layout.required.filter((group) => !groupNames(layout, group).some((name) => present.has(name)));
}

const quoteAll = (headers: readonly string[]) => headers.map((h) => `"${h}"`).join(' or ');

function describeGroup(layout: ExcelLayout, group: readonly string[]): string {
  const fields = new Set(spelledOutColumns.map((c) => c.field as string));
  return [
    ...layout.columns.filter((c) => namesOf(c).some((n) => group.includes(n))).map((c) => quoteAll(c.headers)),
    ...groupNames(layout, group).flatMap(spelledOutMeets).filter((n) => fields.has(n)).map((n) => `"${spelledOut(n)}"`),
  ]
    .filter((text, i, all) => all.indexOf(text) === i)
    .join(' or ');
}

/** The spec 2.5 JSON field name a header cell spells (`consigneeName`, `AWBNUMBER`), if it is one. */
export function jsonFieldNameOf(cell: Cell): string | undefined {
  return typeof cell === 'string' ? jsonFieldNames.get(cell.trim().toLowerCase()) : undefined;
}

function jsonNamesIn(cells: readonly Cell[]): string[] {
  return cells.map(jsonFieldNameOf).filter((n): n is string => n !== undefined);
}

/** Finds the header row among the first `headerSearchRows` rows, or says what is wrong with them. */
function findHeader(layout: ExcelLayout, rows: readonly Row[]): HeaderMatch {
  const candidates = rows.slice(0, layout.headerSearchRows ?? 1);
  let best: { row: Row; matched: HeaderMatch['columns'] } | undefined;
  for (const [index, row] of candidates.entries()) {
    const json = jsonNamesIn(row.cells);
    if (json.length) {
      throw fileError(
        `Row ${row.row} holds JSON field names as column headers (${json.slice(0, 5).join(', ')}). ` +
          `The \`${layout.slug}\` slug reads ${layout.partner}'s Excel layout with human-readable headers; use the \`default\` slug for JSON field names.`,
      );
    }
    const matched = matchColumns(layout, row.cells);
    if (!missingGroups(layout, matched).length) return { index, columns: matched };
    if (!best || matched.length > best.matched.length) best = { row, matched };
  }
  if (!best) throw fileError('The first sheet is empty.');
  const missing = missingGroups(layout, best.matched).map((g) => describeGroup(layout, g));
  const found = best.row.cells.filter((c) => !isBlank(c)).map((c) => `"${cellText(c)}"`);
  const where = candidates.length > 1 ? `any of the first ${candidates.length} rows` : `row ${best.row.row}`;
  throw fileError(
    `The ${layout.partner} layout (\`${layout.slug}\`) needs these column headers, not found in ${where}: ${missing.join('; ')}. ` +
      `Headers found in row ${best.row.row}: ${found.slice(0, 30).join(', ') || 'none'}.`,
  );
}

function combined(op: 'multiply' | 'join', values: (string | number | boolean | undefined)[]): string | number | boolean | undefined {
  if (op === 'join') {
    const words = values.filter((v) => v !== undefined).map(String);
    return words.length ? words.join(' ') : undefined;
  }
  const [base] = values;
  if (base === undefined) return undefined;
  const wrong = values.find((v) => v !== undefined && typeof v !== 'number');
  if (wrong !== undefined) return wrong;
  // A blank quantity counts as one unit.
  return tidy(values.reduce<number>((product, v) => product * (v === undefined ? 1 : (v as number)), 1));
}

interface Provenance {
  /** Spreadsheet row number of each item, by item index. */
  rows: number[];
  /** For each item field, the header(s) it came from, as written in the sheet. */
  headers: Partial<Record<string, string>>;
}

const provenance = new WeakMap<object, Provenance>();

/**
 * The submission input (spec 2.5) for a workbook's rows under `layout`: the root fields from
 * `form`, one item per non-blank row below the header. Throws 422 on `file` when the header row
 * holds JSON field names, lacks a required column, or has no rows below it.
 */
export function rowsToSubmission(layout: ExcelLayout, rows: readonly Row[], form: Readonly<Record<string, string | undefined>>): unknown {
  const header = findHeader(layout, rows);
  const items: Record<string, unknown>[] = [];
  const itemRows: number[] = [];
  for (const row of rows.slice(header.index + 1)) {
    if (header.columns.every(({ at }) => isBlank(row.cells[at] ?? null))) continue;
    const item: Record<string, unknown> = {};
    const parts = new Map<string, string | number | boolean | undefined>();
    for (const { column, at } of header.columns) {
      const value = convert(row.cells[at] ?? null, conversionOf(column));
      if (column.part) parts.set(column.part, value);
      if (column.field && value !== undefined) item[column.field] = value;
    }
    for (const c of layout.combine ?? []) {
      const value = combined(c.op, c.parts.map((p) => parts.get(p)));
      if (value !== undefined) item[c.field] = value;
    }
    items.push(item);
    itemRows.push(row.row);
  }
  if (!items.length) throw fileError(`The sheet has a header row (row ${rows[header.index].row}) but no item rows below it.`);

  const submission: Record<string, unknown> = {};
  for (const name of formFields) if (Object.hasOwn(form, name) && form[name] !== undefined) submission[name] = form[name];
  submission.items = items;

  const headers: Provenance['headers'] = {};
  for (const { column, header: text } of header.columns) if (column.field) headers[column.field] = text;
  for (const c of layout.combine ?? []) {
    const texts = c.parts.map((p) => header.columns.find((m) => m.column.part === p)?.header).filter(Boolean);
    headers[c.field] = texts.join(c.op === 'multiply' ? ' × ' : ' + ');
  }
  provenance.set(submission, { rows: itemRows, headers });
  return submission;
}

/** The spreadsheet row (1-based, as Excel shows it) an item of a converted submission came from. */
export function spreadsheetRowOf(submission: unknown, itemIndex: number): number | undefined {
  return typeof submission === 'object' && submission !== null ? provenance.get(submission)?.rows[itemIndex] : undefined;
}

/**
 * Validation errors of a converted submission, each item message prefixed with the spreadsheet
 * row and column it is about: `items.12.consigneeEmail: Must be an e-mail address.` becomes
 * `Row 14, column "Email": Must be an e-mail address.` (the keys stay as they are).
 */
export function withSpreadsheetRows(errors: FieldErrors, submission: unknown): FieldErrors {
  const origin = typeof submission === 'object' && submission !== null ? provenance.get(submission) : undefined;
  if (!origin) return errors;
  const out = emptyFieldErrors();
  for (const [key, messages] of Object.entries(errors)) {
    const m = /^items\.(\d+)(?:\.(.+))?$/.exec(key);
    const row = m ? origin.rows[Number(m[1])] : undefined;
    if (!m || row === undefined) {
      out[key] = messages;
      continue;
    }
    const header = m[2] ? origin.headers[m[2]] : undefined;
    const where = header ? `Row ${row}, column "${header}"` : `Row ${row}`;
    out[key] = messages.map((message) => `${where}: ${message}`);
  }
  return out;
}
