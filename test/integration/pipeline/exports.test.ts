import { randomUUID } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, Unzip, UnzipInflate, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwin } from '#support/twin';
import { item, submitPath } from '#support/manifests';
import { XLSX } from '#support/workbooks';
import type { BatchRecord, ProcessedResult } from '#core/manifests/model';
import type { ProcessedProduct } from '#core/manifests/views';
import { summaryFigureRows } from '#core/manifests/product-table';
import { putPage, putStageOutput, type PageItem, type StageOutput } from '#services/pipeline/pages-store';
import { writeBatchResults } from '#services/pipeline/batch-results';
import { getResultHashes, productsPerPart, resultRows, resultsIndex } from '#services/pipeline/results-store';
import { PipelineFinish } from '#catalog/pipeline';
import { run, type Ran } from '#support/run';
import { lambdaHeapFlags, type FinishAnswer, type FinishJob, type FinishResults } from '#support/finish-process';

const t = useTwin();

/** Submits, runs intake and the pipeline to the end, and answers the batch id and the run id. */
async function submitAndSettle(token: string, body: unknown): Promise<{ batchId: string; runId: string }> {
  const key = randomUUID();
  const res = await t.call('POST', submitPath(), { token, body, headers: { 'idempotency-key': key } });
  expect(res.status).toBe(202);
  await t.settle();
  const batchId = (await t.call('GET', `/v1/couriers/default/webhook/${key}/status`, { token })).body.batch_id as string;
  const status = await t.call('GET', `/v1/couriers/manifests/${batchId}/pipeline-status`, { token });
  expect(status.body.data).toMatchObject({ status: 'completed', overall_progress: 100 });
  return { batchId, runId: status.body.data.run_id as string };
}

async function download(token: string, batchId: string, format: string, redirect: 'follow' | 'manual' = 'follow', acceptEncoding?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (acceptEncoding) headers['accept-encoding'] = acceptEncoding;
  const res = await fetch(`${t.twin.apiUrl}/v1/couriers/manifests/${batchId}/download?format=${format}`, { headers, redirect });
  if (redirect === 'follow') expect(res.status).toBe(200);
  return res;
}

const json = async (token: string, batchId: string) => (await (await download(token, batchId, 'json')).json()) as { success: boolean; data: { manifest: any; total_products: number; products: ProcessedProduct[] } };
const csv = async (token: string, batchId: string) => parseCsv(await (await download(token, batchId, 'csv')).text());
const xlsx = async (token: string, batchId: string) => Buffer.from(await (await download(token, batchId, 'xlsx')).arrayBuffer());

/** RFC 4180: quoted fields may hold commas, quotes (doubled) and line breaks; records end in CRLF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(field), rows.push(row), (row = []), (field = ''), i++;
    else field += ch;
  }
  return rows;
}

const columns = ['awb_number', 'tracking_number', 'description', 'consignee', 'tax_id', 'quota', 'regime', 'ncm_code', 'classification_source', 'classification_confidence', ...['fob_value', 'cif_value', 'customs_duty', 'statistics_fee', 'vat', 'ddp_value', 'amount_to_pay'].flatMap((k) => [k, `${k}_ars`]), 'currency', 'exchange_rate', 'exchange_rate_date', 'exchange_rate_source', 'customs_channel', 'reasons', 'risk_flags'];

/** A product as a row of the csv (every value as text, null as empty, reasons joined). */
/** The risk flags as their column shows them: `code: reason (norm)`, ` | ` between; none, empty. */
const riskCell = (p: ProcessedProduct) => (p.risk_flags?.length ? p.risk_flags.map((f) => `${f.code}: ${f.reason} (${f.norm})`).join(' | ') : null);
const asCsvRow = (p: ProcessedProduct) =>
  columns.map((c) =>
    c === 'reasons'
      ? p.reasons.join('; ')
      : c === 'risk_flags'
        ? (riskCell(p) ?? '')
        : c.startsWith('exchange_rate')
          ? String((p.exchange_rate as Record<string, unknown> | null | undefined)?.[c === 'exchange_rate' ? 'rate' : c.slice('exchange_rate_'.length)] ?? '')
          : String((p as unknown as Record<string, unknown>)[c] ?? ''),
  );

/** The files stored for a run's downloads, with their modification times. */
function storedExports(batchId: string, runId: string): Record<string, number> {
  const dir = join(t.dataDir, 'blobs', 'exports', batchId, runId);
  return Object.fromEntries(readdirSync(dir).filter((f) => /^products(-[0-9a-f]+)?\.(json|csv|xlsx)$/.test(f)).map((f) => [f, statSync(join(dir, f)).mtimeMs]));
}

/** A company consignee: commercial, no quota, so a re-run gives the same figures. */
const company = { consigneeIdType: 'CUIT', consigneeIdNumber: '30703088534' };

describe('downloads made once per run, read back in every format', () => {
  let token: string;
  let batchId: string;
  let runId: string;
  let answer: Awaited<ReturnType<typeof json>>;

  beforeAll(async () => {
    ({ token } = await t.account('Exports Couriers'));
    ({ batchId, runId } = await submitAndSettle(token, {
      mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`,
      items: [
        item(1, { itemDescription: 'Pistola "de aire", 9mm', hsCode: undefined }),
        item(2, { itemDescription: '=HYPERLINK("http://x")', ...company }),
        item(3, { itemDescription: 'Zapatillas running', fobValueUsd: 60.1 }),
        item(4, { itemDescription: '  Auriculares  ', ...company, fobValueUsd: 35 }),
      ],
    }));
    answer = await json(token, batchId);
  }, 60_000);

  it('answers the JSON with the manifest as completed and every product in item-key order', async () => {
    const listed = (await t.call('GET', '/v1/couriers/manifests', { token })).body.data.find((m: { batch_id: string }) => m.batch_id === batchId);
    expect(answer.success).toBe(true);
    expect(answer.data.manifest).toEqual(listed);
    expect(answer.data.manifest).toMatchObject({ status: 'completed', progress: 100, summary: { total_articles: 4, prohibited_items: 1 } });
    expect(answer.data.total_products).toBe(4);
    expect(answer.data.products.map((p) => p.item_key)).toEqual(['line-1', 'line-2', 'line-3', 'line-4']);
  });

  it('answers the CSV with the same products in the same columns, quoted and guarded against formulas', async () => {
    const rows = await csv(token, batchId);
    expect(rows[0]).toEqual(columns);
    expect(rows.slice(1)).toEqual(answer.data.products.map(asCsvRow).map((r, i) => (i === 1 ? [r[0], r[1], `'${r[2]}`, ...r.slice(3)] : r)));
    expect(rows[1][2]).toBe('Pistola "de aire", 9mm');
    expect(rows[2][2]).toBe(`'=HYPERLINK("http://x")`);
  });

  it('answers a workbook with a bold filled header, a frozen first row, 0.00 money and a Summary sheet', async () => {
    const bytes = await xlsx(token, batchId);
    const book = XLSX.read(bytes, { type: 'buffer', cellStyles: true });
    expect(book.SheetNames).toEqual(['Products', 'Summary']);
    const sheet = book.Sheets.Products;
    const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, defval: null });
    expect(rows[0]).toEqual(columns);
    const byColumn = (p: ProcessedProduct) =>
      columns.map((c) =>
        c === 'reasons'
          ? p.reasons.join('; ')
          : c === 'risk_flags'
            ? riskCell(p)
            : c.startsWith('exchange_rate')
              ? ((p.exchange_rate as Record<string, unknown> | null | undefined)?.[c === 'exchange_rate' ? 'rate' : c.slice('exchange_rate_'.length)] ?? null)
              : ((p as unknown as Record<string, unknown>)[c] ?? null),
      );
    expect(rows.slice(1)).toEqual(answer.data.products.map(byColumn));
    expect(sheet.A1.s).toMatchObject({ patternType: 'solid', fgColor: { rgb: '1F4E78' } });
    expect(sheet.K2).toMatchObject({ t: 'n', v: 12.5, z: '0.00', w: '12.50' });
    expect(sheet['!cols']).toHaveLength(columns.length);
    const summary = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Summary, { header: 1 });
    // The summary's figures, the risk flags' counts one row each (issue 40, item 5).
    const { risk_flags: risk, ...figures } = answer.data.manifest.summary;
    const riskRows = risk ? [['risk_flags_products', risk.products], ['risk_flags_total', risk.total], ...Object.entries(risk.by_rule).map(([code, n]) => [`risk_flags_${code}`, n])] : [];
    expect(risk).toBeDefined();
    expect(summary).toEqual([...summaryFigureRows(figures), ...riskRows]);
    const parts = unzipSync(bytes);
    expect(strFromU8(parts['xl/worksheets/sheet1.xml'])).toContain('<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>');
    expect(strFromU8(parts['xl/worksheets/sheet1.xml'])).toMatch(/<c r="A1" s="1" t="inlineStr">/);
    expect(strFromU8(parts['xl/styles.xml'])).toMatch(/<cellXfs count="3"><xf [^>]*\/><xf numFmtId="0" fontId="1" fillId="2"/);
    expect(strFromU8(parts['xl/styles.xml'])).toMatch(/<fonts count="2"><font>.*?<\/font><font><b\/>/);
  });

  it('serves every download from the files stored at finish, made once', async () => {
    const stored = storedExports(batchId, runId);
    expect(Object.keys(stored).sort()).toEqual([expect.stringMatching(/^products-[0-9a-f]{16}\.json$/), 'products.csv', 'products.xlsx']);
    for (const format of ['json', 'csv', 'xlsx', 'excel']) await download(token, batchId, format);
    expect(storedExports(batchId, runId)).toEqual(stored);
  });
});

describe('downloads after the batch changes', () => {
  it('makes the JSON again once the batch is closed, and it shows closed_at', async () => {
    const { token } = await t.account('Closing Couriers');
    const broker = await t.account('Closing Broker', { kind: 'broker' });
    const { batchId, runId } = await submitAndSettle(token, { mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`, items: [item(1, company)] });
    expect((await json(token, batchId)).data.manifest.closed_at).toBeNull();
    const close = await t.call('POST', `/v1/couriers/batches/${batchId}/close`, { token: broker.token });
    expect(close.status).toBe(200);
    const after = await json(token, batchId);
    expect(after.data.manifest.closed_at).toBe(close.body.data.closed_at);
    expect(Object.keys(storedExports(batchId, runId)).filter((f) => f.endsWith('.json'))).toHaveLength(2);
  });

  it('keeps every other product unchanged in every format after an update that changes a few', async () => {
    const { token } = await t.account('Updating Couriers');
    const first = { mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`, items: Array.from({ length: 12 }, (_, k) => item(k + 1, company)) };
    const { batchId } = await submitAndSettle(token, first);
    const before = { json: await json(token, batchId), csv: await csv(token, batchId), xlsx: XLSX.read(await xlsx(token, batchId), { type: 'buffer' }) };
    await submitAndSettle(token, { mawbNumber: first.mawbNumber, batchId, items: [item(3, { ...company, fobValueUsd: 300 }), item(7, { ...company, fobValueUsd: 700 })] });
    const after = { json: await json(token, batchId), csv: await csv(token, batchId), xlsx: XLSX.read(await xlsx(token, batchId), { type: 'buffer' }) };

    const changed = new Set(['line-3', 'line-7']);
    const keys = before.json.data.products.map((p) => p.item_key);
    expect(after.json.data.products.map((p) => p.item_key)).toEqual(keys);
    const same = (i: number) => !changed.has(keys[i]);
    expect(after.json.data.products.filter((_, i) => same(i))).toEqual(before.json.data.products.filter((_, i) => same(i)));
    expect(after.json.data.products.filter((_, i) => !same(i)).map((p) => p.fob_value)).toEqual([300, 700]);
    expect(after.csv.slice(1).filter((_, i) => same(i))).toEqual(before.csv.slice(1).filter((_, i) => same(i)));
    expect(after.csv.slice(1).filter((_, i) => !same(i)).map((r) => r[10])).toEqual(['300', '700']);
    const sheetRows = (book: ReturnType<typeof XLSX.read>) => XLSX.utils.sheet_to_json<unknown[]>(book.Sheets.Products, { header: 1, defval: null }).slice(1);
    expect(sheetRows(after.xlsx).filter((_, i) => same(i))).toEqual(sheetRows(before.xlsx).filter((_, i) => same(i)));
    expect(sheetRows(after.xlsx).filter((_, i) => !same(i)).map((r) => r[10])).toEqual([300, 700]);
    expect(after.json.data.manifest.summary.amount_to_pay).toBeGreaterThan(before.json.data.manifest.summary.amount_to_pay);
  });

  it('redirects a download over 5 MB to the stored file itself', { timeout: 120_000 }, async () => {
    const { token } = await t.account('Large Download Couriers');
    const size = 3_500;
    const { batchId, runId } = await submitAndSettle(token, { mawbNumber: `MAWB-${randomUUID().slice(0, 8)}`, items: Array.from({ length: size }, (_, k) => item(k + 1, company)) });
    // Plain (fetch asks for gzip unless told otherwise; compressed, this result is small enough to answer inline).
    const res = await download(token, batchId, 'json', 'manual', 'identity');
    expect(res.status).toBe(303);
    const zipped = await download(token, batchId, 'json', 'manual', 'gzip');
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(((await zipped.json()) as { data: { total_products: number } }).data.total_products).toBe(size);
    const location = new URL(res.headers.get('location')!);
    const [stored] = Object.keys(storedExports(batchId, runId)).filter((f) => f.endsWith('.json'));
    expect(decodeURIComponent(location.pathname)).toBe(`/_blobs/exports/${batchId}/${runId}/${stored}`);
    const body = (await (await fetch(location)).json()) as { data: { total_products: number; products: unknown[] } };
    expect(body.data.total_products).toBe(size);
    expect(body.data.products).toHaveLength(size);
  });
});

/* ---- 100,000 products, straight through the end of a run ---- */

/** A calculations result as the pipeline writes it (the breakdown is most of a product's 2.3 KB). */
const result: ProcessedResult = {
  regime: 'P',
  regime_reasons: ['personal: the consignee is a person (CUIL 20-12345678-6)', 'within the courier limits: FOB USD 12.50 of USD 3,000.00, at most 3 units of a kind (RG ARCA 5631/2025)'],
  tax_id_formatted: '20-12345678-6',
  tax_id_valid: true,
  quota: 4,
  ncm_code: '6109.10.00',
  classification_confidence: 1,
  classification_source: 'partner',
  cif_value: 15.13,
  customs_duty: 0,
  statistics_fee: 0,
  vat: 3.18,
  ddp_value: 18.31,
  amount_to_pay: 3.18,
  currency: 'USD',
  customs_channel: 'V',
  channel_reasons: ['default: No risk rule applies: automatic clearance.'],
  breakdown: {
    fob_value: 12.5,
    freight: 2.5,
    insurance: 0.13,
    cif_value: 15.13,
    franchise_usd_applied: 12.5,
    duty_base: 0,
    duty_rate: 35,
    customs_duty: 0,
    statistics_fee_rate: 3,
    statistics_fee: 0,
    vat_base: 15.13,
    vat_rate: 21,
    vat: 3.18,
    ddp_value: 18.31,
    amount_to_pay: 3.18,
    currency: 'USD',
    explanation: [
      'FOB 12.50 for 1 unit(s)',
      'freight 2.50: shipment freight 2.50 = 0.5 kg chargeable x USD 5.00/kg (declared 0.3 kg, minimum 0.5 kg applies), split by chargeable weight (this product 0.3 kg)',
      'insurance 0.13: 1% of shipment FOB 12.50 = 0.13, split by FOB',
      'CIF 15.13 = FOB 12.50 + freight 2.50 + insurance 0.13',
      'franchise USD 400.00 of the shipment applied: 12.50 of this product; shipment FOB 12.50 is within it, so duty base = 0.00 (no duty, no statistics fee)',
      'duty 0.00 = 35% (NCM rate) of 0.00',
      'statistics fee 0.00 = 3% of 0.00',
      'VAT 3.18 = 21% of VAT base 15.13 (CIF 15.13 + duty 0.00 + statistics fee 0.00)',
      'DDP 18.31 = CIF 15.13 + duty 0.00 + statistics fee 0.00 + VAT 3.18',
      'amount to pay 3.18 = duty 0.00 + statistics fee 0.00 + VAT 3.18 (USD)',
      'rules in force from 2024-12-03 (Decreto 1065/2024; RG ARCA 5608/2024)',
    ],
  },
};

const keyOf = (n: number) => `item-${String(n).padStart(6, '0')}`;

/**
 * Writes a run's pages and their calculations output as the stages leave them: 500 items a page,
 * in AWB order, which is not item-key order (item n's AWB is a permutation of n), so the end of
 * the run must sort. `amount` gives each item's amount to pay, `hash` its item hash.
 */
async function writeRun(batchId: string, runId: string, keys: readonly number[], total: number, amount: (n: number) => number, hash: (n: number) => string): Promise<number[]> {
  const awbOf = (n: number) => `AWB${String((n * 7919) % total).padStart(7, '0')}`;
  const ordered = [...keys].sort((a, b) => (awbOf(a) < awbOf(b) ? -1 : 1));
  const pages: number[] = [];
  for (let p = 0; p * 500 < ordered.length; p++) {
    const items: PageItem[] = [];
    const out: StageOutput = {};
    for (const n of ordered.slice(p * 500, (p + 1) * 500)) {
      const data = { awbNumber: awbOf(n), consigneeName: `Consignee ${n}`, consigneeIdNumber: '20123456786', itemDescription: 'Cotton t-shirt', fobValueUsd: 12.5, trackingNumber: `TRK${n}` };
      items.push({ itemKey: keyOf(n), awb: awbOf(n), hash: hash(n), runId, data: data as unknown as PageItem['data'] });
      out[keyOf(n)] = { ...result, amount_to_pay: amount(n) };
    }
    await Promise.all([putPage(batchId, runId, p, items), putStageOutput(batchId, runId, 'calculations', p, out)]);
    pages.push(p);
  }
  return pages;
}

/** The batch as its run completes it, for the download files. */
const completedBatch = (batchId: string, runId: string, summary: BatchRecord['summary']): BatchRecord => ({
  batchId,
  accountId: 1,
  manifestNumber: 'MANIFEST-100K',
  mawbNumber: 'MAWB-100K',
  courier: 'default',
  status: 'completed',
  progress: 100,
  itemCount: 100_000,
  awbCount: 100_000,
  finishedRunId: runId,
  summary,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:05:00.000Z',
});

/** Lines of a stored file (as readline counts them), counted as it streams: its line feeds, bytes searched, no string made. */
async function countLines(path: string): Promise<number> {
  let n = 0;
  let last = 0x0a;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) n++;
    if (chunk.length) last = chunk[chunk.length - 1];
  }
  return last === 0x0a ? n : n + 1;
}

/** Rows of a stored workbook's first sheet, counted as it inflates (its `</row>` tags, bytes searched, none split between chunks uncounted). */
async function countSheetRows(path: string): Promise<number> {
  const tag = Buffer.from('</row>');
  let rows = 0;
  let tail = Buffer.alloc(0);
  const unzip = new Unzip((entry) => {
    if (entry.name !== 'xl/worksheets/sheet1.xml') return;
    entry.ondata = (err, chunk) => {
      if (err) throw err;
      const bytes = Buffer.concat([tail, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)]);
      for (let i = bytes.indexOf(tag); i >= 0; i = bytes.indexOf(tag, i + tag.length)) rows++;
      // The last bytes, shorter than the tag, may begin one that ends in the next chunk.
      tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - (tag.length - 1))));
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  for await (const chunk of createReadStream(path)) unzip.push(chunk as Uint8Array);
  unzip.push(new Uint8Array(0), true);
  return rows;
}

/**
 * The end of a run in a process of its own with the finish function's heap (test/support/finish-process.ts),
 * started once: it says when the results are written, then makes the downloads; a test asserts each.
 */
function startFinish(job: FinishJob): { results: Promise<FinishResults>; ended: Promise<Ran> } {
  let out = '';
  let found: (r: FinishResults) => void = () => {};
  let missing: (err: Error) => void = () => {};
  const results = new Promise<FinishResults>((resolve, reject) => ((found = resolve), (missing = reject)));
  const ended = run(process.execPath, ['--import', 'tsx', ...lambdaHeapFlags(PipelineFinish.memoryMb), 'test/support/finish-process.ts', JSON.stringify(job)], {
    timeout: 540_000,
    onStdout: (chunk) => {
      out += chunk;
      // Whole lines only: a chunk may end inside one.
      const line = out.split('\n').slice(0, -1).find((l) => l.startsWith('{"step":"results"'));
      if (line) found(JSON.parse(line) as FinishResults);
    },
  });
  // Settles `results` if the process ended without that line (a later resolve or reject does nothing).
  ended.then(
    (ran) => missing(new Error(`the finish ended (status ${ran.status}) before writing its results: ${ran.stderr.slice(-3000)}`)),
    (err: Error) => missing(err),
  );
  results.catch(() => undefined);
  return { results, ended };
}

describe('the end of a run of 100,000 products', () => {
  const size = 100_000;
  const batchId = 'BT100K';
  const runId = 'run-100k';
  let pages: number[];
  let finish: ReturnType<typeof startFinish> | undefined;
  // In a process of its own with the function's heap: the test worker's heap is unbounded and
  // collects lazily, so a figure taken here measured the collector, not the finish.
  const finishing = () => {
    const { summary: _omitted, ...batch } = completedBatch(batchId, runId, undefined);
    return (finish ??= startFinish({ dataDir: t.dataDir, accountId: 1, pages, batch }));
  };

  beforeAll(async () => {
    pages = await writeRun(batchId, runId, Array.from({ length: size }, (_, n) => n), size, (n) => (n % 1000) / 100, () => 'h'.repeat(64));
  }, 300_000);

  it('writes the results of 100,000 products in item-key order, in parts, with their summary', { timeout: 300_000 }, async () => {
    const { summary } = await finishing().results;
    expect(summary).toMatchObject({ total_products: size, total_awbs: size, personal_items: size, amount_to_pay: 499_500 });
    const index = await resultsIndex(batchId, runId);
    expect(index.total).toBe(size);
    expect(index.parts).toHaveLength(size / productsPerPart);
    expect(index.parts.every((p, i) => p.count === productsPerPart && (i === 0 || index.parts[i - 1].last < p.first))).toBe(true);
  });

  it('writes the three downloads as well within the finish function\'s memory, with the heap Lambda gives it', { timeout: 300_000 }, async () => {
    const ran = await finishing().ended;
    expect(ran.stderr.slice(-3000)).not.toMatch(/heap out of memory|Error/);
    expect(ran.status).toBe(0);
    const answer = JSON.parse(ran.stdout.trim().split('\n').pop()!) as FinishAnswer;
    const memoryMb = PipelineFinish.memoryMb;
    const exports = join(t.dataDir, 'blobs', 'exports', batchId, runId);
    const files = Object.fromEntries(readdirSync(exports).filter((f) => !f.endsWith('.meta.json') && f !== 'results').map((f) => [f, statSync(join(exports, f)).size]));
    const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
    console.log(
      `100,000 products: results ${answer.resultsMs} ms, json+csv+xlsx ${answer.exportsMs} ms; ` +
        `RSS ${mb(answer.rssBefore)} MB before, peak ${mb(answer.rssPeak)} MB of the function's ${memoryMb} MB (heap limit ${mb(answer.heapLimit)} MB); ` +
        `files ${Object.entries(files).map(([f, b]) => `${f} ${mb(b)} MB`).join(', ')}`,
    );
    // Lambda stops a function whose process goes over its memory; the heap's limit is Lambda's own.
    // The peak is the process's over the whole finish: the results and the downloads.
    expect(answer.rssPeak).toBeLessThan(memoryMb * 1024 * 1024);
    expect(answer.summary).toMatchObject({ total_products: size, total_awbs: size, personal_items: size, amount_to_pay: 499_500 });
    const [jsonFile] = Object.keys(files).filter((f) => f.endsWith('.json'));
    expect(files[jsonFile]).toBeGreaterThan(size * 1500);
    expect(await countLines(join(exports, 'products.csv'))).toBe(size + 1);
    expect(await countSheetRows(join(exports, 'products.xlsx'))).toBe(size + 1);
  });

  it('merges an update run into the previous run\'s results in item-key order, its own results replacing the old', { timeout: 120_000 }, async () => {
    const batchId = 'BTMERGE';
    const total = 6_000;
    const previous = await writeRun(batchId, 'run-a', Array.from({ length: total }, (_, n) => n), total, () => 1, (n) => `a${n}`);
    await writeBatchResults({ batchId, runId: 'run-a', accountId: 1 }, previous, undefined);
    const changed = [5, 2_500, 5_999, 6_000, 6_001];
    const update = await writeRun(batchId, 'run-b', changed, total, () => 2, (n) => `b${n}`);
    const { summary } = await writeBatchResults({ batchId, runId: 'run-b', accountId: 1 }, update, 'run-a');

    const rows: { key: string; amount: number | null; hash: string }[] = [];
    for await (const r of resultRows(batchId, 'run-b')) rows.push({ key: r.product.item_key, amount: r.product.amount_to_pay, hash: r.hash });
    expect(rows.map((r) => r.key)).toEqual(Array.from({ length: total + 2 }, (_, n) => keyOf(n)));
    expect(rows.filter((r) => r.amount === 2).map((r) => r.key)).toEqual(changed.map(keyOf));
    expect(rows.every((r) => r.hash === (changed.includes(Number(r.key.slice(5))) ? 'b' : 'a') + Number(r.key.slice(5)))).toBe(true);
    expect(Object.keys(await getResultHashes(batchId, 'run-b'))).toHaveLength(total + 2);
    expect(summary).toMatchObject({ total_products: total + 2, amount_to_pay: total - 3 + 2 * 5 });
  });
});
