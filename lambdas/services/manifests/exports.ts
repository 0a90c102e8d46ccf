import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { BatchRecord, DownloadFormat } from '#core/manifests/model';
import { manifestView } from '#core/manifests/views';
import { csvLine, productColumns, productHeaders, productRow, sheetNames, summaryFigureRows, summaryNamesEs, type DownloadLang } from '#core/manifests/product-table';
import { blobs } from '#infra/blobs';
import { xlsxWorkbook } from '#infra/xlsx-writer';
import { productLines, products, resultsIndex, type ResultsIndex } from '../pipeline/results-store';

/**
 * The processed manifest's download files (spec 4.3), made once per finished run from its stored
 * results and kept beside them, written to storage as they are produced:
 *
 *   exports/{batchId}/{runId}/products.csv
 *   exports/{batchId}/{runId}/products.xlsx
 *   exports/{batchId}/{runId}/products.ndjson          (one product per line)
 *   exports/{batchId}/{runId}/products-{digest}.json
 *   exports/{batchId}/{runId}/products.es.csv, products.es.xlsx   (lang=es: Spanish headers and sheet names, made on first download)
 *
 * and each text file once more compressed, `<key>.gz`, stored with `Content-Encoding: gzip`, for
 * the clients that accept it (made from the stored file, once).
 *
 * The JSON carries the manifest record, which a close or a reopen changes after the run, so it is
 * named after a digest of that record: a batch that changed since gets a new JSON file, made on
 * its next download; csv and xlsx depend on the run's results only.
 */
export type ExportFormat = 'json' | 'ndjson' | 'csv' | 'xlsx';

export const exportFormatOf = (f: DownloadFormat): ExportFormat => (f === 'excel' ? 'xlsx' : f);

const exportContentTypes: Record<ExportFormat, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

function finishedRun(batch: BatchRecord): string {
  if (!batch.finishedRunId) throw new Error(`batch ${batch.batchId} has no finished run`);
  return batch.finishedRunId;
}

/** The language a format's file is written in: csv and xlsx name their columns in it; json and ndjson are the API's fields in any. */
const langOf = (format: ExportFormat, lang: DownloadLang): DownloadLang => (format === 'csv' || format === 'xlsx' ? lang : 'en');

function exportKey(batch: BatchRecord, format: ExportFormat, lang: DownloadLang = 'en'): string {
  const base = `exports/${batch.batchId}/${finishedRun(batch)}`;
  if (format !== 'json') return `${base}/products${langOf(format, lang) === 'es' ? '.es' : ''}.${format}`;
  const manifest = createHash('sha256').update(JSON.stringify(manifestView(batch))).digest('hex').slice(0, 16);
  return `${base}/products-${manifest}.json`;
}

/** Text goes to storage in pieces of about this many characters. */
const pieceChars = 64 * 1024;

async function* pieces(texts: AsyncIterable<string>): AsyncGenerator<Buffer> {
  let piece = '';
  for await (const text of texts) {
    piece += text;
    if (piece.length >= pieceChars) {
      yield Buffer.from(piece);
      piece = '';
    }
  }
  if (piece) yield Buffer.from(piece);
}

/** `{"success":true,"data":{"manifest":...,"total_products":N,"products":[...]}}`, the products copied as stored, not parsed again. */
async function* jsonText(batch: BatchRecord, runId: string, index: ResultsIndex): AsyncGenerator<string> {
  yield `{"success":true,"data":{"manifest":${JSON.stringify(manifestView(batch))},"total_products":${index.total},"products":[`;
  let separator = '';
  for await (const line of productLines(batch.batchId, runId, index)) {
    yield separator + line;
    separator = ',';
  }
  yield ']}}';
}

/** One product per line, each as stored, each line ended by `\n`. */
async function* ndjsonText(batch: BatchRecord, runId: string, index: ResultsIndex): AsyncGenerator<string> {
  for await (const line of productLines(batch.batchId, runId, index)) yield line + '\n';
}

async function* csvText(batch: BatchRecord, runId: string, index: ResultsIndex, lang: DownloadLang): AsyncGenerator<string> {
  yield csvLine(productHeaders(lang));
  for await (const p of products(batch.batchId, runId, index)) yield csvLine(productRow(p));
}

async function* productRows(batch: BatchRecord, runId: string, index: ResultsIndex) {
  for await (const p of products(batch.batchId, runId, index)) yield productRow(p);
}

/** The Summary sheet's rows: each figure of the manifest's summary; the risk flags' counts one row each. */
function summaryRows(batch: BatchRecord): [string, string | number][] {
  const { risk_flags: risk, ...figures } = manifestView(batch).summary;
  const rows = summaryFigureRows(figures);
  if (risk) {
    rows.push(['risk_flags_products', risk.products], ['risk_flags_total', risk.total]);
    for (const [code, n] of Object.entries(risk.by_rule)) rows.push([`risk_flags_${code}`, n]);
  }
  return rows;
}

/** A Summary row's Spanish name: the risk flags' rows as `alertas_de_riesgo_<rest>`. */
const summaryNameEs = (k: string) => summaryNamesEs[k] ?? (k.startsWith('risk_flags_') ? `alertas_de_riesgo_${k.slice('risk_flags_'.length)}` : k);

/** The styled workbook: bold filled header, frozen first row, column widths, money as 0.00, a Summary sheet. */
function xlsxBytes(batch: BatchRecord, runId: string, index: ResultsIndex, lang: DownloadLang): AsyncIterable<Uint8Array> {
  const headers = productHeaders(lang);
  const summary = summaryRows(batch).map(([k, v]): [string, string | number] => [lang === 'es' ? summaryNameEs(k) : k, v]);
  return xlsxWorkbook([
    {
      name: sheetNames[lang].products,
      columns: productColumns.map((c, k) => ({ header: headers[k], width: Math.max(12, headers[k].length + 2), money: c.money })),
      rows: productRows(batch, runId, index),
    },
    { name: sheetNames[lang].summary, rows: summary },
  ]);
}

function exportBytes(batch: BatchRecord, format: ExportFormat, index: ResultsIndex, lang: DownloadLang): AsyncIterable<Uint8Array> {
  const runId = finishedRun(batch);
  if (format === 'json') return pieces(jsonText(batch, runId, index));
  if (format === 'ndjson') return pieces(ndjsonText(batch, runId, index));
  if (format === 'csv') return pieces(csvText(batch, runId, index, lang));
  return xlsxBytes(batch, runId, index, lang);
}

const formats: readonly ExportFormat[] = ['json', 'ndjson', 'csv', 'xlsx'];

/** The formats worth compressing: text (a workbook is a zip already). */
export const compressible = (f: ExportFormat) => f !== 'xlsx';

function writeExport(batch: BatchRecord, format: ExportFormat, index: ResultsIndex, lang: DownloadLang = 'en'): Promise<void> {
  return blobs().putStream(exportKey(batch, format, lang), Readable.from(exportBytes(batch, format, index, langOf(format, lang))), exportContentTypes[format]);
}

/**
 * Makes the batch's download files (all three unless `only` names some) from its finished run's
 * results (`batch` as that run completes it); `index`, the results' index when the caller has it.
 */
export async function writeExports(batch: BatchRecord, only: readonly ExportFormat[] = formats, index?: ResultsIndex): Promise<void> {
  const parts = index ?? (await resultsIndex(batch.batchId, finishedRun(batch)));
  await Promise.all(only.map((f) => writeExport(batch, f, parts)));
}

export interface StoredExport {
  key: string;
  bytes: number;
  contentType: string;
  /** Set on the compressed copy. */
  contentEncoding?: 'gzip';
}

/** The stored download file of the batch's finished run in this format, made now if it is not there yet. */
export async function storedExport(batch: BatchRecord, format: ExportFormat, lang: DownloadLang = 'en'): Promise<StoredExport> {
  const key = exportKey(batch, format, lang);
  let bytes = await blobs().size(key);
  if (bytes === undefined) {
    await writeExport(batch, format, await resultsIndex(batch.batchId, finishedRun(batch)), lang);
    bytes = (await blobs().size(key))!;
  }
  return { key, bytes, contentType: exportContentTypes[format] };
}

/** Gzip level: 6, zlib's default, about 10 times smaller for these files at a few seconds per 200 MB. */
const gzipLevel = 6;

/** Writes `<key>.gz`, the stored file compressed, streamed from storage to storage. */
async function compress(plain: StoredExport): Promise<void> {
  const source = await blobs().getStream(plain.key);
  if (!source) throw new Error(`${plain.key} is not stored`);
  const gzip = createGzip({ level: gzipLevel });
  source.on('error', (err) => gzip.destroy(err));
  await blobs().putStream(`${plain.key}.gz`, source.pipe(gzip), plain.contentType, { contentEncoding: 'gzip' });
}

/** The compressed copy of a text download (`Content-Encoding: gzip`), made from the stored file the first time. */
export async function storedCompressedExport(batch: BatchRecord, format: ExportFormat, lang: DownloadLang = 'en'): Promise<StoredExport> {
  if (!compressible(format)) throw new Error(`${format} is not stored compressed`);
  const plain = await storedExport(batch, format, lang);
  const key = `${plain.key}.gz`;
  let bytes = await blobs().size(key);
  if (bytes === undefined) {
    await compress(plain);
    bytes = (await blobs().size(key))!;
  }
  return { key, bytes, contentType: plain.contentType, contentEncoding: 'gzip' };
}

/** Makes the compressed copies of these text downloads (after `writeExports`), so no download waits for them. */
export async function compressExports(batch: BatchRecord, only: readonly ExportFormat[]): Promise<void> {
  for (const f of only.filter(compressible)) await storedCompressedExport(batch, f);
}
