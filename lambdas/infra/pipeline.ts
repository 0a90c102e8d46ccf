import { domainEvent, events } from './events';

/**
 * Hands an accepted batch run to processing. Intake publishes `manifest.submitted` on the bus;
 * the four-stage pipeline (issue 6) starts from that event. Until a consumer is wired, the batch
 * simply stays pending. The event names the run, so the pipeline processes exactly the items
 * that run created or changed (update mode's SKIPs and REJECTs are not in it).
 */
export interface ProcessingRequest {
  accountId: number;
  batchId: string;
  runId: string;
  manifestNumber: string;
  mode: 'create' | 'update';
  items: number;
}

export const manifestSubmittedEvent = 'manifest.submitted';

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
