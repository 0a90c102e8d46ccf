/** Internal events: an accepted submission, a tax-id correction. Both start a pipeline run. */
export const manifestSubmittedEvent = 'manifest.submitted';
export const manifestReprocessRequestedEvent = 'manifest.reprocess_requested';

import type { BatchRecord } from '../manifests/model';

/**
 * The `data` of the manifest events (the spec leaves their payloads open; docs/partners/processing.md shows them):
 * the manifest and batch they are about, plus what the event reports.
 */
export function manifestEventData<T extends Record<string, unknown>>(batch: BatchRecord, extra: T) {
  return { manifest_number: batch.manifestNumber, batch_id: batch.batchId, mawb_number: batch.mawbNumber, ...extra };
}
