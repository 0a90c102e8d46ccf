import { createHash } from 'node:crypto';
import { manifestEventData } from '#core/pipeline/events';
import type { BatchRecord } from '#core/manifests/model';
import { now } from '#infra/clock';
import { events } from '#infra/events';
import { markReviewAnnounced } from '#infra/entities/review';

/**
 * The end of a broker's review is the close of the batch: when a batch whose results a broker
 * corrected (`reviewRevision`) is closed, one `manifest.processed` carries its summary as the
 * corrections left it, with `review` {`revision`, `decisions`}. Its id is derived from (batch,
 * revision), and the revision announced is kept on the batch, so closing again (or a retried close)
 * does not announce twice; a reopen, more corrections and a close announce the new revision.
 */
export async function announceReview(batch: BatchRecord): Promise<boolean> {
  const revision = batch.reviewRevision ?? 0;
  if (!revision || (batch.reviewAnnounced ?? 0) >= revision || !batch.closedAt) return false;
  const id = 'evt_' + createHash('sha256').update(`${batch.batchId}|review|${revision}|manifest.processed`).digest('hex').slice(0, 32);
  await events().publish([
    {
      id,
      type: 'manifest.processed',
      created_at: now().toISOString(),
      account_id: batch.accountId,
      data: manifestEventData(batch, { summary: batch.summary ?? null, review: { revision, closed_at: batch.closedAt, closed_by: batch.closedBy ?? null } }),
    },
  ]);
  await markReviewAnnounced(batch.batchId, revision);
  return true;
}
