import type { DutySource } from '../customs/tariff-rates';

/**
 * The tariff table (domain/customs-ar.md, "Tariff codes"): one row per 8-digit NCM code with its
 * Spanish description, duty rate and the synonyms the offline classifier retrieves by. The operator
 * imports it as CSV; `parseTariffCsv` checks every line and reports each bad one by number.
 */

export interface TariffRow {
  /** The 8-digit NCM, written `dddd.dd.dd`. */
  ncm: string;
  /** Spanish, as the nomenclature words it. */
  description: string;
  description_en?: string;
  /** Import duty, percent (0 to 35, the Mercosur range). */
  duty_rate: number;
  /**
   * Spanish and English synonyms the classifier matches product descriptions against. A keyword
   * written `~word` is a weak hint (a brand or model name): it decides only when no product word does.
   */
  keywords?: string[];
  /** Where the duty rate comes from; absent for the operator's imported rows (the operator's table is the source). */
  duty_source?: DutySource;
}

export interface CsvLineError {
  line: number;
  message: string;
}

export const maxDutyRate = 35;
export const maxTariffRows = 20_000;
const maxTextLength = 500;
const maxKeywords = 200;
const maxKeywordLength = 100;

const requiredColumns = ['ncm', 'description', 'duty_rate'] as const;
const optionalColumns = ['description_en', 'keywords'] as const;
const knownColumns: readonly string[] = [...requiredColumns, ...optionalColumns];

/** The digits of a code, whatever its punctuation: `8517.13.00` -> `85171300`. */
export function ncmDigits(code: string): string {
  return code.replace(/\D/g, '');
}

/** `85171300`, `8517.13.00` (either dot may be left out) -> `8517.13.00`; anything else -> undefined. */
export function normalizeNcm(code: string): string | undefined {
  const m = /^(\d{4})\.?(\d{2})\.?(\d{2})$/.exec(code.trim());
  return m ? `${m[1]}.${m[2]}.${m[3]}` : undefined;
}

/** The row whose NCM has exactly these 8 digits (any punctuation), if any. */
export function findRow(table: readonly TariffRow[], code: string): TariffRow | undefined {
  const digits = ncmDigits(code);
  if (digits.length !== 8) return undefined;
  return table.find((r) => ncmDigits(r.ncm) === digits);
}

/**
 * Parses a tariff CSV: a header naming the columns (`ncm,description,duty_rate` required,
 * `description_en` and `keywords` optional, any order), then one row per line. Fields may be quoted
 * (`"Bolsos, mochilas"`, `""` for a quote inside). Keywords are `;`-separated. Every bad line is
 * reported with its number (1-based, the header is line 1); a caller stores nothing unless `errors`
 * is empty.
 */
export function parseTariffCsv(text: string): { rows: TariffRow[]; errors: CsvLineError[] } {
  const errors: CsvLineError[] = [];
  const rows: TariffRow[] = [];
  const records = csvRecords(text.replace(/^\uFEFF/, ''));
  const header = records.find((r) => !isBlank(r.fields));
  if (!header) return { rows, errors: [{ line: 1, message: 'The file is empty: expected a header `ncm,description,duty_rate[,description_en][,keywords]` and rows.' }] };
  if (header.error) errors.push({ line: header.line, message: header.error });

  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const headerProblems: string[] = [];
  for (const c of columns) if (!knownColumns.includes(c)) headerProblems.push(`unknown column '${c}'`);
  for (const c of requiredColumns) if (!columns.includes(c)) headerProblems.push(`missing column '${c}'`);
  const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
  for (const c of new Set(repeated)) headerProblems.push(`column '${c}' appears twice`);
  if (headerProblems.length) {
    errors.push({ line: header.line, message: `Bad header: ${headerProblems.join('; ')}. Expected ncm,description,duty_rate[,description_en][,keywords].` });
    return { rows, errors };
  }
  const at = (name: string) => columns.indexOf(name);

  const firstLineOf = new Map<string, number>();
  for (const record of records) {
    if (record === header || isBlank(record.fields)) continue;
    const problem = (message: string) => errors.push({ line: record.line, message });
    if (record.error) {
      problem(record.error);
      continue;
    }
    if (record.fields.length !== columns.length) {
      problem(`Expected ${columns.length} fields, found ${record.fields.length} (quote fields that contain commas).`);
      continue;
    }
    const field = (name: string) => (at(name) >= 0 ? record.fields[at(name)].trim() : '');
    const lineProblems: string[] = [];

    const ncm = normalizeNcm(field('ncm'));
    if (!ncm) lineProblems.push(`ncm '${field('ncm')}' must be 8 digits, as 85171300 or 8517.13.00`);

    const description = field('description');
    if (!description) lineProblems.push('description is empty');
    else if (description.length > maxTextLength) lineProblems.push(`description is longer than ${maxTextLength} characters`);

    const rateText = field('duty_rate').replace(/%$/, '').trim();
    const duty = /^\d+(\.\d+)?$/.test(rateText) ? Number(rateText) : NaN;
    if (!Number.isFinite(duty) || duty < 0 || duty > maxDutyRate) lineProblems.push(`duty_rate '${field('duty_rate')}' must be a number from 0 to ${maxDutyRate}`);

    const descriptionEn = field('description_en');
    if (descriptionEn.length > maxTextLength) lineProblems.push(`description_en is longer than ${maxTextLength} characters`);

    const keywords = field('keywords')
      .split(';')
      .map((k) => k.trim())
      .filter(Boolean);
    if (keywords.length > maxKeywords) lineProblems.push(`more than ${maxKeywords} keywords`);
    const long = keywords.find((k) => k.length > maxKeywordLength);
    if (long) lineProblems.push(`keyword '${long.slice(0, 20)}...' is longer than ${maxKeywordLength} characters`);

    if (ncm) {
      const first = firstLineOf.get(ncm);
      if (first !== undefined) lineProblems.push(`ncm ${ncm} is repeated (first on line ${first})`);
      else firstLineOf.set(ncm, record.line);
    }
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(record.fields.join(''))) lineProblems.push('contains control characters');

    if (lineProblems.length) {
      problem(lineProblems.join('; '));
      continue;
    }
    const row: TariffRow = { ncm: ncm!, description, duty_rate: duty };
    if (descriptionEn) row.description_en = descriptionEn;
    if (keywords.length) row.keywords = keywords;
    rows.push(row);
  }
  if (!errors.length && rows.length === 0) errors.push({ line: header.line, message: 'The file has a header but no tariff rows.' });
  if (rows.length > maxTariffRows) errors.push({ line: header.line, message: `The file has ${rows.length} rows; at most ${maxTariffRows} are accepted.` });
  return { rows: errors.length ? [] : rows, errors };
}

interface CsvRecord {
  /** The line the record starts on (1-based). */
  line: number;
  fields: string[];
  error?: string;
}

function isBlank(fields: string[]): boolean {
  return fields.every((f) => f.trim() === '');
}

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
function csvRecords(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i <= n) {
    const start = line;
    const fields: string[] = [];
    let field = '';
    let error: string | undefined;
    let ended = false;
    while (!ended) {
      if (i < n && text[i] === '"') {
        field = '';
        i++;
        let closed = false;
        while (i < n) {
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (!closed) error ??= 'A quoted field is not closed.';
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] !== ' ' && text[i] !== '\t') error ??= 'Text after a closing quote; double the quote inside a quoted field ("").';
          i++;
        }
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') error ??= 'A quote inside an unquoted field; quote the whole field and double the quote ("").';
          field += text[i];
          i++;
        }
      }
      fields.push(field);
      field = '';
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      if (i < n && text[i] === '\r') i++;
      if (i < n && text[i] === '\n') i++;
      else if (i >= n) i = n + 1;
      ended = true;
    }
    records.push({ line: start, fields, error });
    line++;
  }
  return records;
}
