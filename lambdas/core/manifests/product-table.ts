import type { ProcessedProduct } from './views';

export type TableCell = string | number | null;

export interface ProductColumn {
  header: string;
  value: (p: ProcessedProduct) => TableCell;
  /** Shown with 2 decimals in the workbook. */
  money?: boolean;
}

/** The columns of the csv and xlsx downloads, in order. */
export const productColumns: readonly ProductColumn[] = [
  { header: 'awb_number', value: (p) => p.awb_number },
  { header: 'tracking_number', value: (p) => p.tracking_number },
  { header: 'description', value: (p) => p.description },
  { header: 'consignee', value: (p) => p.consignee },
  { header: 'tax_id', value: (p) => p.tax_id },
  { header: 'quota', value: (p) => p.quota },
  { header: 'regime', value: (p) => p.regime },
  { header: 'ncm_code', value: (p) => p.ncm_code },
  { header: 'classification_source', value: (p) => p.classification_source },
  { header: 'classification_confidence', value: (p) => p.classification_confidence },
  { header: 'fob_value', value: (p) => p.fob_value, money: true },
  { header: 'cif_value', value: (p) => p.cif_value, money: true },
  { header: 'customs_duty', value: (p) => p.customs_duty, money: true },
  { header: 'statistics_fee', value: (p) => p.statistics_fee, money: true },
  { header: 'vat', value: (p) => p.vat, money: true },
  { header: 'ddp_value', value: (p) => p.ddp_value, money: true },
  { header: 'amount_to_pay', value: (p) => p.amount_to_pay, money: true },
  { header: 'currency', value: (p) => p.currency },
  { header: 'customs_channel', value: (p) => p.customs_channel },
  { header: 'reasons', value: (p) => p.reasons.join('; ') },
  /** The risk rules' flags (issue 40, item 5): each `code: reason (norm)`, separated by ` | `; empty when none. */
  { header: 'risk_flags', value: (p) => (p.risk_flags?.length ? p.risk_flags.map((f) => `${f.code}: ${f.reason} (${f.norm})`).join(' | ') : null) },
];

export const productRow = (p: ProcessedProduct): TableCell[] => productColumns.map((c) => c.value(p));

/** RFC 4180 field; a leading = + - @ is prefixed with ' so a spreadsheet never runs it as a formula. */
function csvField(v: TableCell): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV record with its CRLF. */
export const csvLine = (cells: readonly TableCell[]) => cells.map(csvField).join(',') + '\r\n';
