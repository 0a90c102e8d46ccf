import { canAccess, type Principal } from '#core/auth/principal';
import { NotFound } from '#core/errors';
import { decisionPagesFor, isVisible, looksLikeBatchId, type BatchRecord, type BatchStatus } from '#core/manifests/model';
import { batchStatusView, chunkStatusView, decisionView, manifestView, productView, submissionStatus, zoneless, type ProcessedProduct } from '#core/manifests/views';
import { now } from '#infra/clock';
import { announceReview } from '../review/announce';
import { getSubmission } from '#infra/entities/manifest-submissions';
import { productsByKey } from '../pipeline/results-store';
import { liveProgress } from '#core/pipeline/stages';
import { intakeProgress } from '#core/manifests/intake-progress';
import type { StoredItem } from '#core/manifests/model';
import { getBatch, getChunkSet, getDecisionPages, hasReceivingBatch, latestBatchOf, listBatches, listItems, listSegments, setBatchClosed } from '#infra/entities/manifests';

/**
 * Where a path names `{manifest}`: a batch id selects that batch exactly; anything else is a
 * manifest number and selects the caller's latest batch of it. Another account's batch is 404.
 */
export async function findBatch(principal: Principal, manifest: string): Promise<BatchRecord | undefined> {
  if (looksLikeBatchId(manifest)) {
    const batch = await getBatch(manifest);
    if (batch && canAccess(principal, batch.accountId) && isVisible(batch)) return batch;
  }
  return latestBatchOf(principal.accountId, manifest);
}

export async function requireBatch(principal: Principal, manifest: string): Promise<BatchRecord> {
  const batch = await findBatch(principal, manifest);
  if (batch) return batch;
  if (!looksLikeBatchId(manifest) && (await hasReceivingBatch(principal.accountId, manifest))) {
    throw new NotFound(
      `Manifest ${manifest} is still being written; it shows here once every item is. Meanwhile GET /api/v1/couriers/{courier}/webhook/{Idempotency-Key}/status says how many items are written and the seconds left.`,
    );
  }
  throw new NotFound(`No manifest or batch ${manifest} in your account.`);
}

/** What a submission is doing: queued until its items are written, then its batch's state. */
const statusOfBatch = (batch: BatchRecord | undefined) => (batch && isVisible(batch) ? submissionStatus(batch) : 'queued');

/** GET /v1/couriers/{courier}/webhook/{idempotencyKey}/status: the submission under that key. */
export async function submissionStatusOf(principal: Principal, key: string) {
  const submission = await getSubmission(principal.accountId, key);
  if (submission) {
    const batch = submission.status === 'written' ? await getBatch(submission.batchId) : undefined;
    const visible = batch && isVisible(batch) ? batch : undefined;
    const status = submission.status === 'failed' ? 'failed' : statusOfBatch(visible);
    return statusAnswer(key, { ...submission, status }, visible, { decisions: submission.counts ?? null, intake: intakeProgress(submission, now()) });
  }
  const set = await getChunkSet(principal.accountId, key);
  if (!set) throw new NotFound('No submission with this idempotency key in your account.');
  const batch = set.status === 'complete' ? await getBatch(set.batchId) : undefined;
  const visible = batch && isVisible(batch) && batch.lastRunId === set.baseKey ? batch : undefined;
  const view = chunkStatusView(set, now());
  const status = set.status === 'complete' ? statusOfBatch(visible) : view.status;
  return statusAnswer(key, { ...set, status, items: set.totalItems }, visible);
}

/**
 * The submission status answer (spec 4.3) of a whole submission or a chunk set: the batch's
 * progress only once it is visible; `whole`, the fields only a whole submission has (`decisions`).
 */
function statusAnswer<S extends string, D extends object = object>(
  key: string,
  s: { status: S; createdAt: string; updatedAt: string; manifestNumber: string; mode: string; items: number; failure?: string },
  visible: BatchRecord | undefined,
  whole?: D,
) {
  return {
    status: s.status,
    idempotency_key: key,
    created_at: zoneless(s.createdAt),
    updated_at: zoneless([s.updatedAt, visible?.updatedAt ?? ''].sort().pop()!),
    batch_id: visible?.batchId ?? null,
    manifest_number: s.manifestNumber,
    mode: s.mode,
    items_count: s.items,
    progress: visible ? liveProgress(visible) : 0,
    ...whole,
    failure: s.failure ?? null,
  };
}

export async function chunkStatus(principal: Principal, baseKey: string) {
  const set = await getChunkSet(principal.accountId, baseKey.toLowerCase());
  if (!set) throw new NotFound('No chunked upload with this base_idempotency_key in your account.');
  return chunkStatusView(set, now());
}

export interface ManifestFilters {
  status?: BatchStatus;
  dateFrom?: string;
  dateTo?: string;
}

/** The caller's batches, newest first; uploads still receiving chunks are not manifests yet. */
export async function listManifests(principal: Principal, f: ManifestFilters) {
  const batches = await listBatches(principal.accountId, {
    from: f.dateFrom ? `${f.dateFrom}T00:00:00.000Z` : undefined,
    to: f.dateTo ? `${f.dateTo}T23:59:59.999Z` : undefined,
  });
  return batches.filter((b) => b.status !== 'receiving' && (!f.status || b.status === f.status)).map(manifestView);
}

export async function batchStatuses(principal: Principal, ids: readonly string[]) {
  return Promise.all(ids.map(async (id) => batchStatusView(id, await findBatch(principal, id))));
}

/** One page of a batch's decision log, oldest submission first, items in payload order. */
export async function decisionLog(principal: Principal, manifest: string, batchId: string, page: number, perPage: number) {
  const batch = await getBatch(batchId);
  if (!batch || !isVisible(batch) || !canAccess(principal, batch.accountId) || (manifest !== batch.manifestNumber && manifest !== batch.batchId)) {
    throw new NotFound(`No batch ${batchId} of manifest ${manifest} in your account.`);
  }
  const segments = await listSegments(batch.batchId);
  const total = segments.reduce((n, s) => n + s.count, 0);
  const refs = decisionPagesFor(segments, (page - 1) * perPage, perPage);
  const pages = await getDecisionPages(batch.batchId, refs);
  const bySegment = new Map(segments.map((s) => [s.id, s]));
  const data = refs.flatMap((r) => (pages.get(`${r.segmentId}#${r.page}`) ?? []).slice(r.from, r.to).map((e) => decisionView(e, bySegment.get(r.segmentId)!)));
  const counts = { create: 0, update: 0, skip: 0, reject: 0 };
  for (const s of segments) for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += s.counts[k];
  return {
    data,
    meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)), counts },
    batch,
  };
}

/** Close or reopen a batch (broker or admin, any account); repeating either is harmless. */
export async function setClosed(principal: Principal, batchId: string, close: boolean) {
  const current = await getBatch(batchId);
  if (!current || !isVisible(current)) throw new NotFound(`No batch ${batchId}.`);
  const unchanged = close ? Boolean(current.closedAt) : !current.closedAt;
  const by = principal.email ?? principal.tokenName;
  const batch = unchanged ? current : await setBatchClosed(batchId, close ? { at: now().toISOString(), by } : null);
  if (!batch) throw new NotFound(`No batch ${batchId}.`);
  // Closing ends a broker's review: its corrections are announced once (services/review/announce.ts).
  if (close) await announceReview(batch);
  return { batch, changed: !unchanged };
}

/**
 * A manifest's products as the alternative interface shows them (spec 4.5), in item-key order,
 * one page at a time; customs results stay null until the pipeline has written them.
 */
export async function manifestProducts(principal: Principal, manifest: string, page: number, perPage: number) {
  const batch = await requireBatch(principal, manifest);
  const skip = (page - 1) * perPage;
  const products: StoredItem[] = [];
  let cursor: string | null = null;
  let seen = 0;
  do {
    const res = await listItems(batch.batchId, { cursor, limit: 1000 });
    for (const it of res.items) {
      if (seen >= skip && products.length < perPage) products.push(it);
      seen++;
    }
    cursor = res.cursor;
  } while (cursor && products.length < perPage);
  const total = batch.itemCount;
  const processed = batch.finishedRunId ? await productsByKey(batch.batchId, batch.finishedRunId, products.map((it) => it.itemKey)) : new Map<string, ProcessedProduct>();
  return {
    manifest: { ...manifestView(batch), processing_status: batch.status },
    products: products.map((it) => productView(it, processed.get(it.itemKey))),
    meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}
