import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Principal } from '../core/auth/principal';
import { Conflict } from '../core/errors';
import { manifestView, type processedProductView } from '../core/manifests/views';
import type { BatchRecord, DownloadFormat } from '../core/manifests/model';
import { blobs } from '../infra/blobs';
import { getProductsExport } from './pipeline/pages-store';
import { requireBatch } from './manifest-tracking';


/** Bodies above this go to storage and the client is redirected to a signed URL (Lambda answers at most 6 MB). */
export const inlineBodyBytes = 5 * 1000 * 1000;
export const exportUrlSeconds = 60 * 60;

/** The finished run's products as stored at finish (JSON text). */
export async function productsJson(batch: BatchRecord): Promise<string> {
  return (batch.finishedRunId ? await getProductsExport(batch.batchId, batch.finishedRunId) : undefined) ?? '[]';
}

async function processedProducts(batch: BatchRecord) {
  return JSON.parse(await productsJson(batch)) as ReturnType<typeof processedProductView>[];
}

type Product = Awaited<ReturnType<typeof processedProducts>>[number];

const columns: [string, (p: Product) => string | number | null][] = [
  ['awb_number', (p) => p.awb_number],
  ['tracking_number', (p) => p.tracking_number],
  ['description', (p) => p.description],
  ['consignee', (p) => p.consignee],
  ['tax_id', (p) => p.tax_id],
  ['quota', (p) => p.quota],
  ['regime', (p) => p.regime],
  ['ncm_code', (p) => p.ncm_code],
  ['classification_source', (p) => p.classification_source],
  ['classification_confidence', (p) => p.classification_confidence],
  ['fob_value', (p) => p.fob_value],
  ['cif_value', (p) => p.cif_value],
  ['customs_duty', (p) => p.customs_duty],
  ['statistics_fee', (p) => p.statistics_fee],
  ['vat', (p) => p.vat],
  ['ddp_value', (p) => p.ddp_value],
  ['amount_to_pay', (p) => p.amount_to_pay],
  ['currency', (p) => p.currency],
  ['customs_channel', (p) => p.customs_channel],
  ['reasons', (p) => p.reasons.join('; ')],
];

/** RFC 4180 field; a leading = + - @ is prefixed with ' so a spreadsheet never runs it as a formula. */
function csvField(v: string | number | null): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function toCsv(products: Product[]): Buffer {
  const lines = [columns.map(([h]) => h).join(',')];
  for (const p of products) lines.push(columns.map(([, get]) => csvField(get(p))).join(','));
  return Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
}

/** A styled workbook: bold filled header, frozen first row, column widths, money as 0.00. */
function toXlsx(batch: BatchRecord, products: Product[]): Buffer {
  const XLSX = createRequire(import.meta.url)('sheetjs-style') as typeof import('sheetjs-style');
  const rows = [columns.map(([h]) => h), ...products.map((p) => columns.map(([, get]) => get(p)))];
  const ws = XLSX.utils.aoa_to_sheet(rows);
  const header = { font: { bold: true, color: { rgb: 'FFFFFF' } }, fill: { patternType: 'solid', fgColor: { rgb: '1F4E78' } }, alignment: { horizontal: 'center' } };
  const moneyCols = new Set(['fob_value', 'cif_value', 'customs_duty', 'statistics_fee', 'vat', 'ddp_value', 'amount_to_pay']);
  columns.forEach(([h], c) => {
    const ref = XLSX.utils.encode_cell({ r: 0, c });
    (ws[ref] as { s?: unknown }).s = header;
    if (moneyCols.has(h)) for (let r = 1; r < rows.length; r++) {
      const cell = ws[XLSX.utils.encode_cell({ r, c })] as { z?: string } | undefined;
      if (cell) cell.z = '0.00';
    }
  });
  ws['!cols'] = columns.map(([h]) => ({ wch: Math.max(12, h.length + 2) }));
  (ws as Record<string, unknown>)['!freeze'] = { xSplit: 0, ySplit: 1 };
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Products');
  const summary = XLSX.utils.aoa_to_sheet(Object.entries(manifestView(batch).summary).map(([k, v]) => [k, v]));
  XLSX.utils.book_append_sheet(wb, summary, 'Summary');
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

export type Download =
  | { kind: 'inline'; contentType: string; fileName: string; body: Buffer }
  | { kind: 'redirect'; url: string };

/**
 * The processed manifest (spec 4.3 download), only once processing is 100% complete (else 409
 * `processing_incomplete`, the spec leaving that error open). Large answers go through storage.
 */
export async function downloadManifest(principal: Principal, manifest: string, format: DownloadFormat): Promise<Download> {
  const batch = await requireBatch(principal, manifest);
  if (batch.status !== 'completed' || batch.progress !== 100) {
    throw new Conflict(`Manifest ${batch.manifestNumber} (batch ${batch.batchId}) is ${batch.status} at ${batch.progress}%; results can be downloaded at 100%.`, {
      error: 'processing_incomplete',
      batch_id: batch.batchId,
      status: batch.status,
      progress: batch.progress,
    });
  }
  const base = `manifest-${batch.manifestNumber.replace(/[^\w.-]+/g, '_')}-${batch.batchId}`;
  let file: { body: Buffer; contentType: string; fileName: string };
  if (format === 'json') {
    // Spliced as text: the stored products are not parsed and serialized again.
    const products = await productsJson(batch);
    const total = products === '[]' ? 0 : batch.summary?.total_products ?? (JSON.parse(products) as unknown[]).length;
    const body = Buffer.from(`{"success":true,"data":{"manifest":${JSON.stringify(manifestView(batch))},"total_products":${total},"products":${products}}}`);
    file = { body, contentType: 'application/json', fileName: `${base}.json` };
  } else if (format === 'csv') {
    const products = await processedProducts(batch);
    file = { body: toCsv(products), contentType: 'text/csv; charset=utf-8', fileName: `${base}.csv` };
  } else {
    const products = await processedProducts(batch);
    file = { body: toXlsx(batch, products), contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', fileName: `${base}.xlsx` };
  }
  if (file.body.length <= inlineBodyBytes) return { kind: 'inline', ...file };
  const key = `exports/${batch.accountId}/${randomUUID()}/${file.fileName}`;
  await blobs().put(key, file.body, file.contentType);
  return { kind: 'redirect', url: await blobs().downloadUrl(key, { expiresInSeconds: exportUrlSeconds, fileName: file.fileName, contentType: file.contentType }) };
}
