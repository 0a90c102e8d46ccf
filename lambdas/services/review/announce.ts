import { createHash } from 'node:crypto';
import { manifestEventData } from '#core/pipeline/events';
import type { BatchRecord } from '#core/manifests/model';
import { reviewedProductsShown } from '#core/webhooks/events';
import { now } from '#infra/clock';
import { events } from '#infra/events';
import { markReviewAnnounced, reviewDecisionsAfter } from '#infra/entities/review';
import { decisionView } from './decision-view';

/**
 * The end of a broker's review is the close of the batch: when a batch whose results a broker
 * corrected (`reviewRevision`) is closed, one `manifest.reviewed` carries its summary as the
 * corrections left it and the products this review changed (the newest `reviewedProductsShown`,
 * and the route that lists them all, so the event stays far under 256 KB however many there are).
 * Its id is derived from (batch, revision), and the revision announced is kept on the batch, so
 * closing again (or a retried close) does not announce twice; a reopen, more corrections and a
 * close announce the new revision. `manifest.processed` stays the processing's (issue 42).
 */
export async function announceReview(batch: BatchRecord): Promise<boolean> {
  const revision = batch.reviewRevision ?? 0;
  const previous = batch.reviewAnnounced ?? 0;
  if (!revision || previous >= revision || !batch.closedAt) return false;
  const { decisions, more } = await reviewDecisionsAfter(batch.batchId, previous, reviewedProductsShown);
  const id = 'evt_' + createHash('sha256').update(`${batch.batchId}|review|${revision}|manifest.reviewed`).digest('hex').slice(0, 32);
  await events().publish([
    {
      id,
      type: 'manifest.reviewed',
      created_at: now().toISOString(),
      account_id: batch.accountId,
      data: manifestEventData(batch, {
        revision,
        previous_revision: previous,
        decisions: revision - previous,
        products: decisions.map(decisionView),
        more_products: more,
        decisions_path: `/api/v1/couriers/manifests/${batch.batchId}/review/decisions`,
        closed_at: batch.closedAt,
        closed_by: batch.closedBy ?? null,
        summary: batch.summary ?? {},
      }),
    },
  ]);
  await markReviewAnnounced(batch.batchId, revision);
  return true;
}
