import { createInterface } from 'node:readline';
import { mergeByKey } from '#core/pipeline/merge';
import { lastStage } from '#core/pipeline/stages';
import { processedProductView, productFields, type ProcessedProduct } from '#core/manifests/views';
import { productInPesos, type RateAnswer } from '#core/customs/exchange-rate';
import { blobs } from '#infra/blobs';
import { getPage, getStageOutput } from './pages-store';
import { resultRows, writeResults, type ResultRow } from './results-store';
import { SummaryTally } from './summary';
import { RiskPass, type RiskBatch } from './risk';
import { now } from '#infra/clock';

/**
 * A run's pages follow AWBs, while the batch's results are kept in item-key order, so the end of
 * a run is an external merge sort: groups of pages are sorted in memory, stored when there is
 * more than one group, then merged as streams with the previous finished run's results.
 */
const pagesPerSortedGroup = 10;
/** Groups merged at once: each is an open storage stream (the S3 client has 50 sockets). */
const maxSortedGroups = 32;
/** Pages read from storage at once. */
const pagesAtOnce = 4;

const byItemKey = (a: ResultRow, b: ResultRow) => (a.product.item_key < b.product.item_key ? -1 : a.product.item_key > b.product.item_key ? 1 : 0);

/** This run's products of some pages, with the hashes of the items they came from, in item-key order. */
async function sortedRowsOf(batchId: string, runId: string, pages: readonly number[], risk: RiskPass): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (let i = 0; i < pages.length; i += pagesAtOnce) {
    const read = await Promise.all(
      pages.slice(i, i + pagesAtOnce).map((p) => Promise.all([getPage(batchId, runId, p), getStageOutput(batchId, runId, lastStage, p)])),
    );
    for (const [items, out] of read) {
      for (const it of items) {
        risk.add(it.awb, it.itemKey, it.data, out[it.itemKey]);
        rows.push({ hash: it.hash, product: processedProductView({ awb: it.awb, itemKey: it.itemKey, item: productFields(it.data) }, out[it.itemKey] ?? {}) });
      }
    }
  }
  return rows.sort(byItemKey);
}

const groupKey = (batchId: string, runId: string, group: number) => `pipeline/${batchId}/${runId}/sorted-${group}.ndjson`;

async function* storedGroup(key: string): AsyncGenerator<ResultRow> {
  const stream = await blobs().getStream(key);
  if (!stream) throw new Error(`sorted group missing: ${key}`);
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) if (line) yield JSON.parse(line) as ResultRow;
}

async function* inMemory(rows: readonly ResultRow[]): AsyncGenerator<ResultRow> {
  yield* rows;
}

/** This run's results as sources in item-key order: one in memory for a run of one group, else one stored stream per group. */
async function runSources(batchId: string, runId: string, pages: readonly number[], risk: RiskPass): Promise<AsyncIterable<ResultRow>[]> {
  const size = Math.max(pagesPerSortedGroup, Math.ceil(pages.length / maxSortedGroups));
  const groups = Array.from({ length: Math.ceil(pages.length / size) }, (_, g) => pages.slice(g * size, (g + 1) * size));
  if (groups.length <= 1) return [inMemory(await sortedRowsOf(batchId, runId, groups[0] ?? [], risk))];
  for (const [g, group] of groups.entries()) {
    const rows = await sortedRowsOf(batchId, runId, group, risk);
    await blobs().put(groupKey(batchId, runId, g), Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + '\n'), 'application/x-ndjson');
  }
  return groups.map((_, g) => storedGroup(groupKey(batchId, runId, g)));
}

/**
 * Writes the batch's results at the end of a run: the previous finished run's (when this run
 * covers only part of the batch) overlaid with this run's pages, in item-key order; answers the
 * manifest summary, counted as they are written, and what to do once the batch is complete (what
 * the risk rules keep for the next flights: risk.ts). The risk flags ride the same two loops (risk.ts):
 * the items are added as the pages are read, the flags put on as the products are written.
 */
export async function writeBatchResults(batch: Omit<RiskBatch, 'at'>, pages: readonly number[], previous: string | undefined, rate?: RateAnswer) {
  const { batchId, runId } = batch;
  const risk = await RiskPass.start({ ...batch, at: now() }, previous);
  const sources = [...(previous ? [resultRows(batchId, previous)] : []), ...(await runSources(batchId, runId, pages, risk))];
  await risk.prepare();
  const tally = new SummaryTally(risk.enabled, rate);
  // Every product of the batch (the previous run's too) in pesos at this run's rate, so the
  // products and the summary name one rate; a run prepared before amounts in pesos adds none.
  const pesos = (p: ProcessedProduct): ProcessedProduct => (rate ? { ...p, ...productInPesos(p, rate.found ? rate.rate : null) } : p);
  async function* counted() {
    for await (const row of mergeByKey(sources, (r) => r.product.item_key)) {
      const product = pesos(risk.apply(row.product));
      tally.add(product);
      yield { ...row, product };
    }
  }
  await writeResults(batchId, runId, counted());
  await risk.keepFlight();
  return { summary: tally.summary(), afterCompletion: (firstCompletion: boolean) => risk.afterCompletion(firstCompletion) };
}
