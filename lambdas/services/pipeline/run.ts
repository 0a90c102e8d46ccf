import { createHash } from 'node:crypto';
import { stageInputs, type StageName } from '#core/pipeline/stages';
import { planPages } from '#core/pipeline/pages';
import { manifestEventData } from '#core/pipeline/events';
import { now } from '#infra/clock';
import { events, type DomainEvent } from '#infra/events';
import { allItemsOf, getBatch, listSegments } from '#infra/entities/manifests';
import type { BatchRecord } from '#core/manifests/model';
import { failPipeline, finishPipeline, pageDone, stageStatus, startPipeline } from '#infra/entities/pipeline-state';
import { getIntakeItems, getPage, getStageOutput, putPage, putStageOutput, type PageItem, type StageOutput } from './pages-store';
import { getResultHashes, resultsIndex } from './results-store';
import { writeBatchResults } from './batch-results';
import { compressExports, writeExports } from '../manifests/exports';
import { pageAlerts, runStage, stageAlerts, stageHasAlerts } from './stages';
import type { InvalidTaxIdAwb } from '../customs/webservices';
import { recordMetric } from '#shared/metrics';
import { isCalendarDate, rateDayFor } from '#core/customs/exchange-rate';
import { deletePesosWait, putPesosWait } from '#infra/entities/pesos-waits';
import { exchangeRates } from '#infra/exchange-rates/port';
import { logger } from '#shared/logger';

/**
 * The steps of one pipeline run, as the state machine (lib/pipeline.ts) and the twin's runner
 * (twin/pipeline.ts) call them: prepare, then for each stage (in the steps of `stageSteps`) every
 * page and the stage's close, then finish; `fail` when a step gave up after its retries. Every
 * step is idempotent: it reads its inputs from storage and writes its outputs under fixed keys,
 * so a retried step repeats.
 */
export interface RunInput {
  accountId: number;
  batchId: string;
  runId: string;
  /** A shipment to process again even though its items did not change (a tax-id correction). */
  awb?: string;
  /**
   * The day whose exchange rate the run takes: a run that completes a batch's pesos once the rate
   * of the day it waited for is set (amounts in pesos); absent, the business day before the run.
   */
  rateDay?: string;
}

/** A run that a newer submission superseded stops quietly. */
export interface PrepareOutput extends RunInput {
  pages: number[];
  /** The pages hold every item of the batch (a first run): the summary needs no other results. */
  coversAll: boolean;
  superseded?: boolean;
}


/**
 * Plans the run: every item without a current result (those the run created or changed, and
 * any a superseded run left unprocessed), the shipment it asks for (a tax-id correction), plus
 * every other item of the same shipments (regime, quota and duties are decided per shipment), in
 * pages that never split a shipment.
 */
export async function prepare(input: RunInput): Promise<PrepareOutput> {
  const batch = await getBatch(input.batchId);
  if (!batch || batch.lastRunId !== input.runId) return { ...input, pages: [], coversAll: false, superseded: true };
  const written = await itemsAsIntakeWroteThem(batch, input);
  let scope: readonly PageItem[];
  let coversAll: boolean;
  if (written) {
    scope = written;
    coversAll = true;
  } else {
    const [items, current] = await Promise.all([allItemsOf(input.batchId), batch.finishedRunId ? getResultHashes(input.batchId, batch.finishedRunId) : ({} as Record<string, string>)]);
    const awbs = new Set(items.filter((it) => it.runId === input.runId || current[it.itemKey] !== it.hash || it.awb === input.awb).map((it) => it.awb));
    scope = items.filter((it) => awbs.has(it.awb));
    coversAll = scope.length === items.length;
  }
  const pages = planPages(scope);
  await Promise.all(
    pages.map((page, n) =>
      putPage(input.batchId, input.runId, n, page.map((it): PageItem => ({ itemKey: it.itemKey, awb: it.awb, hash: it.hash, runId: it.runId, data: it.data }))),
    ),
  );
  // The run's exchange rate, read once here (the business day before the day the run is prepared)
  // and carried in the run's state to finish; a missing one is kept with its reason, never guessed.
  const rateDay = input.rateDay && isCalendarDate(input.rateDay) ? input.rateDay : rateDayFor(now());
  const exchangeRate = await exchangeRates().rateFor(rateDay);
  const started = await startPipeline(input.batchId, input.runId, pages.length, now().toISOString(), exchangeRate);
  if (started === 'superseded') return { ...input, pages: [], coversAll: false, superseded: true };
  return { ...input, pages: pages.map((_, n) => n), coversAll };
}

/** Segment files read at once while planning. */
const intakeFilesAtOnce = 4;

/**
 * The first run of a new batch processes every item, exactly as intake wrote them: its pages are
 * planned from the segments' intake files (pages-store `putIntakeItems`) instead of a read of every
 * item back from the table (for 100,000 items, 100 MB through DynamoDB). Only when the batch has
 * no finished run, the run is not a single shipment's (a tax-id correction), every segment is a
 * create-mode segment of this run with its file, and the files hold exactly the batch's item
 * count with no item key twice (two chunks that repeat a key leave one item: the table says
 * which); otherwise undefined, and the run reads the table.
 */
async function itemsAsIntakeWroteThem(batch: BatchRecord, input: RunInput): Promise<PageItem[] | undefined> {
  if (batch.finishedRunId || input.awb) return undefined;
  const segments = await listSegments(batch.batchId);
  if (!segments.length || segments.some((g) => g.runId !== input.runId || g.mode !== 'create')) return undefined;
  const items: PageItem[] = [];
  for (let i = 0; i < segments.length; i += intakeFilesAtOnce) {
    const files = await Promise.all(segments.slice(i, i + intakeFilesAtOnce).map((g) => getIntakeItems(batch.batchId, input.runId, g.id)));
    for (const file of files) {
      if (!file) return undefined;
      for (const it of file) items.push(it);
    }
  }
  if (items.length !== batch.itemCount || new Set(items.map((it) => it.itemKey)).size !== items.length) return undefined;
  return items;
}

/** The results of the stages `stage` reads, for one page, merged per item (see `stageInputs`). */
async function priorResults(input: RunInput & { stage: StageName; page: number }): Promise<StageOutput> {
  const outputs = await Promise.all(stageInputs[input.stage].map((s) => getStageOutput(input.batchId, input.runId, s, input.page)));
  if (outputs.length <= 1) return outputs[0] ?? {};
  const merged: StageOutput = {};
  for (const out of outputs) for (const [key, result] of Object.entries(out)) merged[key] = { ...merged[key], ...result };
  return merged;
}

export async function stagePage(input: RunInput & { stage: StageName; page: number }): Promise<void> {
  // Wall-clock time of the page's work (performance.now, not the injectable clock tests move).
  const started = performance.now();
  const [items, prior] = await Promise.all([getPage(input.batchId, input.runId, input.page), priorResults(input)]);
  const out = await runStage(input.stage, items, prior, { accountId: input.accountId, at: now() });
  await putStageOutput(input.batchId, input.runId, input.stage, input.page, out);
  await pageDone(input.batchId, input.runId, input.stage, input.page, now().toISOString());
  const ms = Math.max(1, performance.now() - started);
  recordMetric('StageDuration', ms, { by: input.stage });
  recordMetric('StageItemsPerSecond', (items.length * 1000) / ms, { by: input.stage });
}

/**
 * The same event for the same run and type (and part, for an event sent in parts) every time, so
 * a repeated step does not notify twice.
 */
function runEvent<T>(input: RunInput, type: string, data: T, part?: number): DomainEvent<T> {
  const key = `${input.batchId}|${input.runId}|${type}` + (part === undefined ? '' : `|${part}`);
  const id = 'evt_' + createHash('sha256').update(key).digest('hex').slice(0, 32);
  return { id, type, created_at: now().toISOString(), account_id: input.accountId, data };
}

/** Pages a stage's close reads at once: a few overlap the storage reads, and memory holds a few pages, not the whole run. */
const closePagesAtOnce = 4;

/** What the stage flagged on its pages, in page order (so a repeated close finds the same). */
async function flaggedOnPages(input: RunInput & { stage: StageName; pages: number[] }): Promise<InvalidTaxIdAwb[]> {
  const flagged: InvalidTaxIdAwb[] = [];
  for (let i = 0; i < input.pages.length; i += closePagesAtOnce) {
    const found = await Promise.all(
      input.pages.slice(i, i + closePagesAtOnce).map(async (p) => {
        const [items, output] = await Promise.all([getPage(input.batchId, input.runId, p), getStageOutput(input.batchId, input.runId, input.stage, p)]);
        return pageAlerts(input.stage, items, output);
      }),
    );
    flagged.push(...found.flat());
  }
  return flagged;
}

export async function stageDone(input: RunInput & { stage: StageName; pages: number[] }): Promise<void> {
  const done = await stageStatus(input.batchId, input.runId, input.stage, 'completed', now().toISOString());
  if (done === 'superseded' || !stageHasAlerts(input.stage)) return;
  const alerts = stageAlerts(input.stage, await flaggedOnPages(input));
  if (!alerts.length) return;
  const batch = (await getBatch(input.batchId))!;
  // One event per call: EventBridge bounds a whole PutEvents request, not only each entry, to 256 KB.
  for (const alert of alerts) await events().publish([runEvent(input, alert.type, manifestEventData(batch, alert.data), alert.data.part)]);
}

/**
 * Ends the run: the batch's results (the previous finished run's, overlaid with this run's, in
 * item-key order, with the item hashes they were computed from) and its three download files go
 * to storage, then the batch completes with its summary. The download, the alternative
 * interface's detail and the next run's plan read these.
 */
export async function finish(input: RunInput & { pages: number[]; coversAll?: boolean }): Promise<void> {
  const at = now().toISOString();
  const batch = (await getBatch(input.batchId))!;
  const previous = !input.coversAll && batch.finishedRunId ? batch.finishedRunId : undefined;
  const rate = batch.pipeline?.runId === input.runId ? batch.pipeline.exchangeRate : undefined;
  const { summary, afterCompletion } = await writeBatchResults({ batchId: input.batchId, runId: input.runId, accountId: batch.accountId }, input.pages, previous, rate);
  const completed: BatchRecord = { ...batch, status: 'completed', progress: 100, summary, updatedAt: at, finishedRunId: input.runId };
  // The JSON, what API clients download, is made before the batch completes, so a completed batch
  // always has it; it shows the batch as finishPipeline leaves it (a batch closed or reopened since
  // gets its JSON made again). The CSV and the workbook follow once the batch is complete: they
  // depend on the results only, and a download that comes before them makes its own (storedExport).
  // A batch completed without its rate waits for it (kept by the day, so setting that day's rate
  // finds it); one completed with a rate (that day's, or a later run's own) no longer waits.
  if (rate && !rate.found) await putPesosWait({ date: rate.date, batchId: input.batchId, accountId: batch.accountId, runId: input.runId, at });
  const waited = batch.summary?.pesos_pending?.date;
  if (rate?.found && waited) await deletePesosWait(waited, input.batchId);
  const index = await resultsIndex(input.batchId, input.runId);
  await writeExports(completed, ['json'], index);
  if ((await finishPipeline(input.batchId, input.runId, summary, at)) === 'superseded') return;
  recordMetric('ManifestsCompleted');
  const done = (await getBatch(input.batchId))!;
  await events().publish([
    runEvent(input, 'manifest.total_due', manifestEventData(done, { amount_to_pay: summary.amount_to_pay, currency: summary.currency })),
    // One fact each (issue 42): the run that ended, then the manifest's results it left.
    runEvent(
      input,
      'manifest.processing_completed',
      manifestEventData(done, { run_id: input.runId, covers_all: input.coversAll ?? false, pages: input.pages.length, started_at: done.pipeline?.startedAt ?? at, finished_at: at }),
    ),
    runEvent(input, 'manifest.processed', manifestEventData(done, { summary })),
  ]);
  await writeExports(completed, ['ndjson', 'csv', 'xlsx'], index)
    .then(() => compressExports(completed, ['json', 'ndjson', 'csv']))
    .catch((err: unknown) => logger.warn('ndjson, csv, xlsx or compressed downloads not made at finish; the first download makes them', { error: String(err) }));
  // Last, what the risk rules keep for the next flights (no download waits for it). The NCMs'
  // histories count a batch once: at its first completion (a repeated finish of that run included).
  await afterCompletion(!batch.finishedRunId || batch.finishedRunId === input.runId);
}

export async function fail(input: RunInput & { stage?: StageName; error: string }): Promise<void> {
  if ((await failPipeline(input.batchId, input.runId, input.stage, input.error, now().toISOString())) === 'superseded') return;
  recordMetric('ManifestsFailed');
  const batch = (await getBatch(input.batchId))!;
  await events().publish([runEvent(input, 'manifest.processing_failed', manifestEventData(batch, { stage: input.stage ?? null, error: input.error }))]);
}
