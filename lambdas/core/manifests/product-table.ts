import type { ProcessedProduct } from './views';

export type TableCell = string | number | null;

export interface ProductColumn {
  header: string;
  /** The header of the Spanish download (`lang=es`, issue 40): the same column, named in Spanish. */
  header_es: string;
  value: (p: ProcessedProduct) => TableCell;
  /** Shown with 2 decimals in the workbook. */
  money?: boolean;
}

/** The columns of the csv and xlsx downloads, in order. */
export const productColumns: readonly ProductColumn[] = [
  { header: 'awb_number', header_es: 'guia_aerea', value: (p) => p.awb_number },
  { header: 'tracking_number', header_es: 'numero_de_seguimiento', value: (p) => p.tracking_number },
  { header: 'description', header_es: 'descripcion', value: (p) => p.description },
  { header: 'consignee', header_es: 'destinatario', value: (p) => p.consignee },
  { header: 'tax_id', header_es: 'cuit_cuil_dni', value: (p) => p.tax_id },
  { header: 'quota', header_es: 'cupo', value: (p) => p.quota },
  { header: 'regime', header_es: 'regimen', value: (p) => p.regime },
  { header: 'ncm_code', header_es: 'ncm', value: (p) => p.ncm_code },
  { header: 'classification_source', header_es: 'origen_de_la_clasificacion', value: (p) => p.classification_source },
  { header: 'classification_confidence', header_es: 'confianza_de_la_clasificacion', value: (p) => p.classification_confidence },
  { header: 'fob_value', header_es: 'valor_fob', value: (p) => p.fob_value, money: true },
  { header: 'cif_value', header_es: 'valor_cif', value: (p) => p.cif_value, money: true },
  { header: 'customs_duty', header_es: 'derechos', value: (p) => p.customs_duty, money: true },
  { header: 'statistics_fee', header_es: 'tasa_de_estadistica', value: (p) => p.statistics_fee, money: true },
  { header: 'vat', header_es: 'iva', value: (p) => p.vat, money: true },
  { header: 'ddp_value', header_es: 'valor_ddp', value: (p) => p.ddp_value, money: true },
  { header: 'amount_to_pay', header_es: 'total_a_pagar', value: (p) => p.amount_to_pay, money: true },
  { header: 'currency', header_es: 'moneda', value: (p) => p.currency },
  { header: 'customs_channel', header_es: 'canal', value: (p) => p.customs_channel },
  { header: 'reasons', header_es: 'motivos', value: (p) => p.reasons.join('; ') },
  /** The risk rules' flags (issue 40, item 5): each `code: reason (norm)`, separated by ` | `; empty when none. */
  { header: 'risk_flags', header_es: 'alertas_de_riesgo', value: (p) => (p.risk_flags?.length ? p.risk_flags.map((f) => `${f.code}: ${f.reason} (${f.norm})`).join(' | ') : null) },
];

/** The languages of the csv and xlsx downloads: the API's English names (the default), or Spanish. */
export const downloadLangs = ['en', 'es'] as const;
export type DownloadLang = (typeof downloadLangs)[number];

export const productHeaders = (lang: DownloadLang): string[] => productColumns.map((c) => (lang === 'es' ? c.header_es : c.header));

/** The workbook's sheet names, and the summary's rows named in Spanish (the summary of manifestView). */
export const sheetNames: Record<DownloadLang, { products: string; summary: string }> = {
  en: { products: 'Products', summary: 'Summary' },
  es: { products: 'Productos', summary: 'Resumen' },
};
export const summaryNamesEs: Record<string, string> = {
  total_awbs: 'guias_aereas',
  total_articles: 'articulos',
  personal_items: 'articulos_personales',
  commercial_items: 'articulos_comerciales',
  prohibited_items: 'articulos_prohibidos',
  amount_to_pay: 'total_a_pagar',
  currency: 'moneda',
};

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
