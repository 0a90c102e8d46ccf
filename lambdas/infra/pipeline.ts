import { domainEvent, events } from './events';
import { manifestReprocessRequestedEvent, manifestSubmittedEvent } from '#core/pipeline/events';
import type { StageName } from '#core/pipeline/stages';

/**
 * Hands an accepted batch run to processing. Intake publishes `manifest.submitted` on the bus;
 * the PipelineStart worker starts the four-stage pipeline from that event. The event names the
 * run, so the pipeline processes the items that run created or changed (update mode's SKIPs and
 * REJECTs are not in it).
 */
export interface ProcessingRequest {
  accountId: number;
  batchId: string;
  runId: string;
  manifestNumber: string;
  mode: 'create' | 'update';
  items: number;
}


export async function requestProcessing(req: ProcessingRequest): Promise<void> {
  await events().publish([
    domainEvent(manifestSubmittedEvent, req.accountId, {
      batch_id: req.batchId,
      run_id: req.runId,
      manifest_number: req.manifestNumber,
      mode: req.mode,
      items: req.items,
    }),
  ]);
}

/** A stage of the manifest pipeline (spec 3.3), as `core/pipeline/stages.ts` declares them. */
export type PipelineStage = StageName;

/**
 * Asks the pipeline to run some stages again for the items of one AWB of a batch, e.g. after a
 * tax-id correction (web services and calculations). Published as `manifest.reprocess_requested`
 * on the bus; the pipeline's consumer runs the named stages for that AWB.
 */
export interface ReprocessRequest {
  accountId: number;
  batchId: string;
  awb: string;
  stages: PipelineStage[];
}


export async function requestReprocessing(req: ReprocessRequest): Promise<void> {
  await events().publish([
    domainEvent(manifestReprocessRequestedEvent, req.accountId, {
      batch_id: req.batchId,
      awb_number: req.awb,
      stages: req.stages,
    }),
  ]);
}

/** PutEvents entries per call (EventBridge takes at most 10). */
const eventsPerCall = 10;

/**
 * Asks the pipeline to complete the pesos of batches that completed waiting for the exchange rate
 * of `rateDay`, now set: `manifest.reprocess_requested` with `rate_day` (no AWB, no stage to redo),
 * one per batch; the pipeline's consumer starts a run over the batch that takes that day's rate.
 */
export async function requestPesosCompletion(rateDay: string, batches: readonly { accountId: number; batchId: string }[]): Promise<void> {
  for (let i = 0; i < batches.length; i += eventsPerCall) {
    await events().publish(batches.slice(i, i + eventsPerCall).map((b) => domainEvent(manifestReprocessRequestedEvent, b.accountId, { batch_id: b.batchId, rate_day: rateDay, stages: [] })));
  }
}
