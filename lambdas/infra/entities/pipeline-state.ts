import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';
import { cancellationCodes, isConditionalFailure, type TransactPut } from './entity';
import { batchKey, getBatch } from './manifests';
import { manifestBatches } from './manifests/batch';
import { pageMarks } from './pipeline-state/page-mark';
import { newPipelineState, overallProgress, type PipelineState, type StageName } from '#core/pipeline/stages';
import type { BatchRecord } from '#core/manifests/model';
import type { RateAnswer } from '#core/customs/exchange-rate';

/**
 * The pipeline's marks on the batch record: the run's stage states (`pipeline`: per stage its
 * status and pages done), the batch's status and progress. Which pages are done is kept in a mark
 * per page beside the batch (`pageDone`), so a retried page counts once.
 * Every write is conditional on the batch still being on this run: a run superseded by a newer
 * submission stops writing the moment the newer one starts.
 */

/** How long a page's done-mark is kept (a run that has not finished in a month never will). */
const pageMarkSeconds = 30 * 24 * 3600;

/** The run is no longer the batch's (or, for a page count, a higher count already landed). */
type Superseded = 'superseded';

async function update(
  batchId: string,
  runId: string,
  expr: string,
  names: Record<string, string>,
  values: Record<string, unknown>,
  condition?: string,
): Promise<Record<string, unknown> | Superseded> {
  try {
    const res = await documentClient().send(
      new UpdateCommand({
        TableName: config.tableName(),
        Key: batchKey(batchId),
        UpdateExpression: expr,
        ConditionExpression: condition ? `#lastRunId = :runId AND ${condition}` : '#lastRunId = :runId',
        ExpressionAttributeNames: { ...names, '#lastRunId': 'lastRunId' },
        ExpressionAttributeValues: { ...values, ':runId': runId },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return res.Attributes ?? {};
  } catch (err) {
    if (isConditionalFailure(err)) return 'superseded';
    throw err;
  }
}

/**
 * Starts the run's stages: processing, 0%, every stage pending over `pages` pages. Once only: a
 * prepare that runs again for the same run (its step retried, or a crash before the step was
 * marked done, with some of its pages already counted) finds the run started and keeps its
 * counts (reset, the pages already marked would never count again and the run would never end).
 */
export async function startPipeline(batchId: string, runId: string, pages: number, at: string, exchangeRate?: RateAnswer): Promise<PipelineState | Superseded> {
  const state = newPipelineState(runId, pages, at, exchangeRate);
  const res = await update(
    batchId,
    runId,
    'SET #pipeline = :state, #status = :processing, #progress = :zero, #updatedAt = :at',
    { '#pipeline': 'pipeline', '#status': 'status', '#progress': 'progress', '#updatedAt': 'updatedAt', '#runId': 'runId' },
    { ':state': state, ':processing': 'processing', ':zero': 0, ':at': at },
    '(attribute_not_exists(#pipeline.#runId) OR #pipeline.#runId <> :runId)',
  );
  if (res !== 'superseded') return state;
  const batch = await getBatch(batchId);
  return batch?.lastRunId === runId && batch.pipeline?.runId === runId ? batch.pipeline : 'superseded';
}

async function writeProgress(batchId: string, runId: string, attrs: Record<string, unknown>, at: string): Promise<void> {
  // The batch as the update left it (it has a pipeline: startPipeline wrote it).
  const progress = overallProgress(manifestBatches().parse({ Item: attrs }).data!.pipeline!);
  await update(batchId, runId, 'SET #progress = :p, #updatedAt = :at', { '#progress': 'progress', '#updatedAt': 'updatedAt' }, { ':p': progress, ':at': at });
}

/**
 * Page `page` of `stage` is done: counted once on the batch, which moves the stage's progress and
 * the batch's (`liveProgress` reads it from the counts: no second write per page). The page's mark is a record of its own (in the batch's partition, kept a month), written in one
 * transaction with the count: a retried page finds its mark and counts nothing, and the batch
 * record stays the same size however many pages a run has.
 */
export async function pageDone(batchId: string, runId: string, stage: StageName, page: number, at: string): Promise<'ok' | Superseded> {
  const TableName = config.tableName();
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: pageMarks().create({ batchId, runId, stage, page, ttl: Math.floor(Date.parse(at) / 1000) + pageMarkSeconds }).params<TransactPut>() },
          {
            Update: {
              TableName,
              Key: batchKey(batchId),
              UpdateExpression: 'ADD #pipeline.#stages.#stage.#done :one SET #pipeline.#stages.#stage.#status = :processing',
              ConditionExpression: '#lastRunId = :runId',
              ExpressionAttributeNames: { '#pipeline': 'pipeline', '#stages': 'stages', '#stage': stage, '#done': 'done', '#status': 'status', '#lastRunId': 'lastRunId' },
              ExpressionAttributeValues: { ':one': 1, ':processing': 'processing', ':runId': runId },
            },
          },
        ],
      }),
    );
  } catch (err) {
    const codes = cancellationCodes(err);
    if (!codes) throw err;
    if (codes[1] === 'ConditionalCheckFailed') return 'superseded';
    if (codes[0] !== 'ConditionalCheckFailed') throw err;
  }
  return 'ok';
}

export async function stageStatus(batchId: string, runId: string, stage: StageName, status: 'processing' | 'completed' | 'failed', at: string): Promise<'ok' | Superseded> {
  const res = await update(
    batchId,
    runId,
    'SET #pipeline.#stages.#stage.#status = :status, #updatedAt = :at',
    { '#pipeline': 'pipeline', '#stages': 'stages', '#stage': stage, '#status': 'status', '#updatedAt': 'updatedAt' },
    { ':status': status, ':at': at },
  );
  if (res === 'superseded') return res;
  await writeProgress(batchId, runId, res, at);
  return 'ok';
}

/** The run finished: completed at 100% with the manifest's summary. */
export async function finishPipeline(batchId: string, runId: string, summary: NonNullable<BatchRecord['summary']>, at: string): Promise<'ok' | Superseded> {
  const res = await update(
    batchId,
    runId,
    'SET #status = :completed, #progress = :full, #summary = :summary, #pipeline.#finishedAt = :at, #updatedAt = :at, #finishedRunId = :runId',
    { '#status': 'status', '#progress': 'progress', '#summary': 'summary', '#pipeline': 'pipeline', '#finishedAt': 'finishedAt', '#updatedAt': 'updatedAt', '#finishedRunId': 'finishedRunId' },
    { ':completed': 'completed', ':full': 100, ':summary': summary, ':at': at },
  );
  return res === 'superseded' ? res : 'ok';
}

/** The run failed for good (after its retries): the batch is failed, with the stage and reason. */
export async function failPipeline(batchId: string, runId: string, stage: StageName | undefined, error: string, at: string): Promise<'ok' | Superseded> {
  const names: Record<string, string> = { '#status': 'status', '#pipeline': 'pipeline', '#error': 'error', '#updatedAt': 'updatedAt' };
  let expr = 'SET #status = :failed, #pipeline.#error = :error, #updatedAt = :at';
  if (stage) {
    expr += ', #pipeline.#stages.#stage.#stageStatus = :failed';
    Object.assign(names, { '#stages': 'stages', '#stage': stage, '#stageStatus': 'status' });
  }
  const res = await update(batchId, runId, expr, names, { ':failed': 'failed', ':error': error.slice(0, 500), ':at': at });
  return res === 'superseded' ? res : 'ok';
}
