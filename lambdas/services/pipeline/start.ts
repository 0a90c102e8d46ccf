import type { DomainEvent } from '#infra/events';
import { manifestReprocessRequestedEvent, manifestSubmittedEvent } from '#core/pipeline/events';
import { pipelineRunner } from '#infra/state-machine';
import { getBatch, startRun } from '#infra/entities/manifests';
import { now } from '#infra/clock';

/**
 * Starts the run an event asks for. A submission's run was already made current by intake; a
 * tax-id correction gets a run of its own (named after the event, so a redelivered event starts
 * it once) over the corrected shipment, which all four stages process again.
 */
export async function startRunFor(event: DomainEvent): Promise<void> {
  const data = event.data as { batch_id: string; run_id?: string; awb_number?: string; rate_day?: string };
  if (event.type === manifestSubmittedEvent) {
    await pipelineRunner().start({ accountId: event.account_id, batchId: data.batch_id, runId: data.run_id! });
    return;
  }
  if (event.type === manifestReprocessRequestedEvent && data.rate_day !== undefined) {
    // Pesos for a batch that completed waiting for the rate of `rate_day`, now set: a run over no
    // changed item, whose finish writes every product again in pesos. Only while it still waits.
    const batch = await getBatch(data.batch_id);
    if (batch?.status !== 'completed' || batch.summary?.pesos_pending?.date !== data.rate_day) return;
    const runId = `pesos-${event.id}`;
    if ((await startRun(data.batch_id, runId, now().toISOString())) === 'closed') return;
    await pipelineRunner().start({ accountId: event.account_id, batchId: data.batch_id, runId, rateDay: data.rate_day });
    return;
  }
  if (event.type === manifestReprocessRequestedEvent) {
    const runId = `fix-${event.id}`;
    if ((await startRun(data.batch_id, runId, now().toISOString())) === 'closed') return;
    await pipelineRunner().start({ accountId: event.account_id, batchId: data.batch_id, runId, awb: data.awb_number });
  }
}
