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
  { header: 'fob_value_ars', header_es: 'valor_fob_ars', value: (p) => p.fob_value_ars ?? null, money: true },
  { header: 'cif_value', header_es: 'valor_cif', value: (p) => p.cif_value, money: true },
  { header: 'cif_value_ars', header_es: 'valor_cif_ars', value: (p) => p.cif_value_ars ?? null, money: true },
  { header: 'customs_duty', header_es: 'derechos', value: (p) => p.customs_duty, money: true },
  { header: 'customs_duty_ars', header_es: 'derechos_ars', value: (p) => p.customs_duty_ars ?? null, money: true },
  { header: 'statistics_fee', header_es: 'tasa_de_estadistica', value: (p) => p.statistics_fee, money: true },
  { header: 'statistics_fee_ars', header_es: 'tasa_de_estadistica_ars', value: (p) => p.statistics_fee_ars ?? null, money: true },
  { header: 'vat', header_es: 'iva', value: (p) => p.vat, money: true },
  { header: 'vat_ars', header_es: 'iva_ars', value: (p) => p.vat_ars ?? null, money: true },
  { header: 'ddp_value', header_es: 'valor_ddp', value: (p) => p.ddp_value, money: true },
  { header: 'ddp_value_ars', header_es: 'valor_ddp_ars', value: (p) => p.ddp_value_ars ?? null, money: true },
  { header: 'amount_to_pay', header_es: 'total_a_pagar', value: (p) => p.amount_to_pay, money: true },
  { header: 'amount_to_pay_ars', header_es: 'total_a_pagar_ars', value: (p) => p.amount_to_pay_ars ?? null, money: true },
  { header: 'currency', header_es: 'moneda', value: (p) => p.currency },
  /** The rate that converted the `_ars` columns (ARS per USD), its day and its source; empty while the batch waits for its rate. */
  { header: 'exchange_rate', header_es: 'tipo_de_cambio', value: (p) => p.exchange_rate?.rate ?? null },
  { header: 'exchange_rate_date', header_es: 'fecha_del_tipo_de_cambio', value: (p) => p.exchange_rate?.date ?? null },
  { header: 'exchange_rate_source', header_es: 'fuente_del_tipo_de_cambio', value: (p) => p.exchange_rate?.source ?? null },
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
  amount_to_pay_ars: 'total_a_pagar_ars',
  exchange_rate: 'tipo_de_cambio',
  exchange_rate_date: 'fecha_del_tipo_de_cambio',
  exchange_rate_source: 'fuente_del_tipo_de_cambio',
  pesos_pending_date: 'pesos_pendientes_fecha',
  pesos_pending_reason: 'pesos_pendientes_motivo',
};

/**
 * A summary's figures as rows of name and value: the pesos' objects flattened (the rate, its day
 * and source; while the batch waits, the day and the reason), a null total in pesos left empty.
 */
export function summaryFigureRows(figures: Record<string, unknown>): [string, string | number][] {
  const rows: [string, string | number][] = [];
  for (const [k, v] of Object.entries(figures)) {
    if (k === 'exchange_rate' || k === 'pesos_pending') {
      const o = v as { rate?: number; date: string; source?: string; reason?: string } | null;
      if (k === 'exchange_rate' && o) rows.push(['exchange_rate', o.rate!], ['exchange_rate_date', o.date], ['exchange_rate_source', o.source!]);
      if (k === 'pesos_pending' && o) rows.push(['pesos_pending_date', o.date], ['pesos_pending_reason', o.reason!]);
    } else rows.push([k, v === null || v === undefined ? '' : (v as string | number)]);
  }
  return rows;
}

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
