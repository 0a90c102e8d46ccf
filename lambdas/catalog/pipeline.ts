import type { EventRuleDef, PipelineTaskDef, WorkerDef } from './types';
import { manifestReprocessRequestedEvent, manifestSubmittedEvent } from '#core/pipeline/events';

/** Accepted manifests and tax-id corrections start pipeline runs. */
export const ManifestPipeline = { id: 'ManifestPipeline', eventTypes: [manifestSubmittedEvent, manifestReprocessRequestedEvent], queue: 'manifestPipeline' } satisfies EventRuleDef;

export const PipelineStart = {
  id: 'PipelineStart',
  handler: 'workers/pipeline/start',
  summary: 'manifest.submitted / manifest.reprocess_requested -> one state machine run per (batch, run)',
  queue: 'manifestPipeline',
  batchSize: 10,
  uses: { table: ['GetItem', 'UpdateItem'], pipeline: true },
} satisfies WorkerDef;

const pipelineFiles = (actions: ('GetObject' | 'PutObject')[]) => [{ name: 'files' as const, actions }];

export const PipelinePrepare = {
  id: 'PipelinePrepare',
  handler: 'workers/pipeline/prepare',
  summary: 'Plan a run: the items without a current result, in pages that never split a shipment',
  // PutItem: the day's exchange rate fetched from the BCRA, stored once; the bus: the reprocess
  // events for the batches that waited for that day's rate (infra/exchange-rates/port.ts).
  uses: { table: ['GetItem', 'Query', 'UpdateItem', 'PutItem'], bucket: pipelineFiles(['GetObject', 'PutObject']), bus: true },
  memoryMb: 1024,
  timeoutSeconds: 300,
} satisfies PipelineTaskDef;

export const PipelineStagePage = {
  id: 'PipelineStagePage',
  handler: 'workers/pipeline/stage-page',
  summary: 'One stage (classification, webservices, ai, calculations) over one page of items',
  uses: {
    // PutItem: the page's done-mark, written in one transaction with the stage's count.
    // BatchGetItem: the partner-code memory the ai stage reads (services/review).
    table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem'],
    bucket: pipelineFiles(['GetObject', 'PutObject']),
    bedrock: true,
  },
  memoryMb: 1024,
  timeoutSeconds: 300,
} satisfies PipelineTaskDef;

export const PipelineStageDone = {
  id: 'PipelineStageDone',
  handler: 'workers/pipeline/stage-done',
  summary: "Close a stage: mark it completed and report what it found (invalid tax ids)",
  uses: { table: ['GetItem', 'UpdateItem'], bucket: pipelineFiles(['GetObject']), bus: true },
  memoryMb: 512,
  timeoutSeconds: 120,
} satisfies PipelineTaskDef;

export const PipelineFinish = {
  id: 'PipelineFinish',
  handler: 'workers/pipeline/finish',
  summary: 'Store the results in parts and the json, csv and xlsx downloads, complete the manifest with its summary, emit total_due, processing_completed (the run) and processed (the results)',
  // PutItem, DeleteItem: the batch's wait for its exchange rate (infra/entities/pesos-waits.ts).
  uses: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], bucket: pipelineFiles(['GetObject', 'PutObject']), bus: true },
  memoryMb: 1024,
  timeoutSeconds: 300,
} satisfies PipelineTaskDef;

export const PipelineFailed = {
  id: 'PipelineFailed',
  handler: 'workers/pipeline/failed',
  summary: 'A step gave up after its retries: mark the manifest failed, emit processing_failed',
  uses: { table: ['GetItem', 'UpdateItem'], bus: true },
} satisfies PipelineTaskDef;

/**
 * The manifest pipeline's tasks (spec 3.3). The state machine (lib/pipeline.ts) and the twin's
 * runner (twin/pipeline.ts) invoke them in the order of `stageNames` (lambdas/core/pipeline/stages.ts).
 */
export const pipelineTasks = { prepare: PipelinePrepare, stagePage: PipelineStagePage, stageDone: PipelineStageDone, finish: PipelineFinish, failed: PipelineFailed };

export const pipelineWorkers = { PipelineStart };
