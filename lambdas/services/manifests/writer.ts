import { Conflict, ServiceError } from '#core/errors';
import type { ManifestSubmission } from '#core/manifests/submission';
import { decisionsPerPage, type BatchRecord, type ChunkSetRecord, type DecisionSegment } from '#core/manifests/model';
import { keyItems, resolveItems, type Resolution } from '#core/manifests/resolve';
import { nowIso } from '#infra/clock';
import { claimSubmission, finishSubmission, getSubmission, recordWritten, type SubmissionRecord } from '#infra/entities/manifest-submissions';
import { progressEvery } from '#core/manifests/intake-progress';
import {
  createBatch,
  failChunkSet,
  getBatch,
  getItems,
  markChunkWritten,
  otherOwnersOfAwb,
  putItems,
  recordSegment,
  startRun,
  type ChunkRecord,
} from '#infra/entities/manifests';
import { requestProcessing } from '#infra/pipeline';
import { acceptChunk, readPayload, type IntakeJob } from './intake-job';
import { putIntakeItems } from '../pipeline/pages-store';
import { recordMetric } from '#shared/metrics';
import { config } from '#shared/config';
import { packsOfBatch, packsOfItems } from '#core/search/index-terms';
import { putSearchPacks } from '#infra/entities/search';

/**
 * Manifest intake, the worker's half: writes an accepted submission's items from its stored
 * payload, then releases the batch to processing. Every step is idempotent (item puts under
 * fixed keys with the acceptance's timestamps, a segment recorded once, a run started once), so a
 * job that dies anywhere runs again from the start and ends in the same batch.
 *
 * A new batch stays `receiving` (hidden from every route) until all its items are written; the
 * run's start makes it `pending`: a crash never shows a partial batch. In update mode the batch
 * is already visible: it is marked pending for the run before its items change, so it never shows
 * new items beside the results of the previous run as if those were current.
 */

/** A submission that cannot be written (its batch closed meanwhile, its payload gone): reported, not retried. */
class IntakeRefused extends Error {}

function newBatch(accountId: number, courier: string, s: ManifestSubmission, batchId: string, at: string): BatchRecord {
  return {
    batchId,
    accountId,
    manifestNumber: s.manifestNumber,
    mawbNumber: s.mawbNumber,
    courier,
    header: {
      airline: s.airline,
      flightNumber: s.flightNumber,
      aircraftRegistration: s.aircraftRegistration,
      originAirport: s.originAirport,
      customsBrokerCode: s.customsBrokerCode,
    },
    status: 'receiving',
    progress: 0,
    itemCount: 0,
    awbCount: 0,
    createdAt: at,
    updatedAt: at,
  };
}

/** The batch an accepted submission writes into: new (hidden until written), or its open update target. */
async function batchFor(accountId: number, courier: string, s: ManifestSubmission, batchId: string, mode: 'create' | 'update', at: string): Promise<BatchRecord> {
  if (mode === 'create') {
    const batch = newBatch(accountId, courier, s, batchId, at);
    await createBatch(batch);
    // The search finds the batch by its manifest number and guía; a retry puts the same items.
    await putSearchPacks(packsOfBatch(batch));
    return batch;
  }
  const batch = await getBatch(batchId);
  if (!batch || batch.accountId !== accountId) throw new IntakeRefused(`batch ${batchId} is not a batch of this account`);
  if (batch.closedAt) throw new IntakeRefused(`batch ${batchId} was closed by the broker at ${batch.closedAt} before the items were written`);
  return batch;
}

/**
 * Decides every item of the payload (spec 3.5). Update mode compares with the stored items under
 * the same keys and, for AWBs new to the batch, whether another account holds them. An item this
 * same run wrote before (a resumed job) keeps its decision, so a resume writes what the first
 * attempt did.
 */
async function resolve(accountId: number, batch: BatchRecord, s: ManifestSubmission, run: { runId: string; mode: 'create' | 'update'; at: string }): Promise<Resolution> {
  const keyed = keyItems(s.items, { accountId, manifestNumber: batch.manifestNumber, batchId: batch.batchId });
  // A new batch holds nothing but this run's own writes, which are CREATEs like the payload's.
  const existing = run.mode === 'create' ? new Map() : await getItems(batch.batchId, [...new Set(keyed.map((k) => k.key))]);
  const crossTeam = new Set<string>();
  if (run.mode === 'update') {
    const newAwbs = [...new Set(keyed.filter((k) => k.awb && !existing.has(k.key)).map((k) => k.awb))];
    for (const awb of newAwbs) if (await otherOwnersOfAwb(awb, accountId)) crossTeam.add(awb);
  }
  return resolveItems(keyed, { accountId, batchId: batch.batchId, runId: run.runId, at: run.at }, existing, crossTeam);
}

/**
 * Writes the decided items, the decision log's pages and the search's index items of the items
 * written (core/search/index-terms: packed per key, so far fewer than the items), then records
 * the segment on the batch. `written`, when given, hears how many items are written after each
 * slice of `progressEvery` (a whole submission's status shows it).
 */
async function writeResolution(
  batch: BatchRecord,
  resolution: Resolution,
  segment: Omit<DecisionSegment, 'count' | 'counts'>,
  written?: (count: number) => Promise<void>,
): Promise<void> {
  const batchId = batch.batchId;
  const pages = [];
  for (let i = 0, page = 0; i < resolution.entries.length; i += decisionsPerPage, page++) {
    pages.push({ batchId, segmentId: segment.id, page, entries: resolution.entries.slice(i, i + decisionsPerPage) });
  }
  // A create-mode segment also leaves its items as one file for the run's planning (pipeline/run.ts `prepare`).
  if (segment.mode === 'create') {
    await putIntakeItems(batchId, segment.runId, segment.id, resolution.writes.map((it) => ({ itemKey: it.itemKey, awb: it.awb, hash: it.hash, runId: it.runId, data: it.data })));
  }
  const search = config.searchIndex() ? packsOfItems(resolution.writes, { accountId: batch.accountId, batchId, manifestNumber: batch.manifestNumber }, segment.id) : null;
  const slice = written ? progressEvery : Math.max(1, resolution.writes.length);
  let from = 0;
  for (; from + slice < resolution.writes.length; from += slice) {
    await putItems(resolution.writes.slice(from, from + slice), []);
    await written!(from + slice);
  }
  await putItems(resolution.writes.slice(from), pages, search);
  const recorded = await recordSegment(batchId, { ...segment, count: resolution.entries.length, counts: resolution.counts }, { created: resolution.counts.create, awbs: resolution.newAwbs, at: nowIso() });
  if (recorded === 'closed') throw new IntakeRefused(`batch ${batchId} was closed by the broker before the items were written`);
  recordMetric('ItemsAccepted', resolution.writes.length);
}

async function release(accountId: number, batch: { batchId: string; manifestNumber: string }, runId: string, mode: 'create' | 'update', items: number): Promise<void> {
  if ((await startRun(batch.batchId, runId, nowIso())) === 'closed') throw new IntakeRefused(`batch ${batch.batchId} was closed by the broker before processing started`);
  await requestProcessing({ accountId, batchId: batch.batchId, runId, manifestNumber: batch.manifestNumber, mode, items });
}

async function writeSubmission(job: SubmissionRecord): Promise<SubmissionRecord['status']> {
  const held = await claimSubmission(job);
  // Another request holds the key: its own job writes it (or it is other content, answered 409).
  if (held.requestHash !== job.requestHash || held.nonce !== job.nonce) return 'queued';
  if (held.status !== 'queued') return held.status;
  try {
    const payload = await readPayload(held.payloadKey);
    if (!payload) throw new IntakeRefused('the stored payload is missing');
    const s = payload.submission;
    const batch = await batchFor(held.accountId, held.courier, s, held.batchId, held.mode, held.createdAt);
    const resolution = await resolve(held.accountId, batch, s, { runId: held.key, mode: held.mode, at: held.createdAt });
    const dispatch = held.mode === 'create' || resolution.writes.length > 0;
    // Update mode: the batch says pending for this run before any of its items change.
    if (held.mode === 'update' && dispatch) await release(held.accountId, batch, held.key, 'update', resolution.writes.length);
    const writingFrom = nowIso();
    await writeResolution(batch, resolution, { id: held.key, runId: held.key, mode: held.mode, at: held.createdAt }, (n) =>
      recordWritten(held.accountId, held.key, n, writingFrom, nowIso()),
    );
    if (held.mode === 'create') await release(held.accountId, batch, held.key, 'create', resolution.writes.length);
    await finishSubmission(held.accountId, held.key, { status: 'written', counts: resolution.counts }, nowIso());
    return 'written';
  } catch (err) {
    if (!(err instanceof IntakeRefused)) throw err;
    await finishSubmission(held.accountId, held.key, { status: 'failed', failure: err.message }, nowIso());
    return 'failed';
  }
}

/**
 * Writes an accepted submission within the request that accepted (or replays) it, so its answer
 * can say the manifest exists (the alternative interface's 201, at most 1000 products). The same
 * idempotent steps as the worker's; its queued job, delayed past the request's life, finds the
 * submission written and stops, or resumes it if the request died. Processing stays asynchronous.
 */
export async function writeInRequest(accepted: SubmissionRecord): Promise<void> {
  const status = await writeSubmission(accepted);
  if (status === 'written') return;
  if (status === 'failed') {
    const reason = (await getSubmission(accepted.accountId, accepted.key))?.failure ?? 'unknown';
    throw new Conflict(`This upload failed (${reason}). Send it again under a new Idempotency-Key.`);
  }
  throw new Error(`submission ${accepted.key} is held by another request and was not written`);
}

async function writeChunk(job: { set: ChunkSetRecord; chunk: ChunkRecord }): Promise<void> {
  let accepted: Awaited<ReturnType<typeof acceptChunk>>;
  try {
    accepted = await acceptChunk(job.set, job.chunk, new Date(job.chunk.receivedAt));
  } catch (err) {
    // Refused at arrival (the request answered 4xx): nothing of it is written.
    if (err instanceof ServiceError && err.status < 500) return;
    throw err;
  }
  // Another request's copy of this chunk is written by its own job; a failed upload writes no more.
  if (!accepted.fresh || accepted.set.status === 'failed') return;
  let set = accepted.set;
  const n = job.chunk.chunk;
  try {
    if (!set.written.includes(n)) {
      const payload = await readPayload(job.chunk.payloadKey);
      if (!payload) throw new IntakeRefused(`the stored payload of chunk ${n} is missing`);
      const s = payload.submission;
      const batch = await batchFor(set.accountId, set.courier, s, set.batchId, set.mode, set.createdAt);
      const resolution = await resolve(set.accountId, batch, s, { runId: set.baseKey, mode: set.mode, at: job.chunk.receivedAt });
      await writeResolution(batch, resolution, { id: `${set.baseKey}#${String(n).padStart(2, '0')}`, runId: set.baseKey, mode: set.mode, chunk: n, at: job.chunk.receivedAt });
      set = await markChunkWritten(set.accountId, set.baseKey, n, nowIso());
    }
    // Whichever chunk finds every chunk written releases the batch (a repeated release runs once).
    if (set.written.length === set.totalChunks) await release(set.accountId, set, set.baseKey, set.mode, set.totalItems);
  } catch (err) {
    if (!(err instanceof IntakeRefused)) throw err;
    await failChunkSet(set.accountId, set.baseKey, err.message, nowIso());
  }
}

/** Writes one intake job; on its last delivery a failure is recorded on the submission (the status routes show it). */
export async function writeIntakeJob(job: IntakeJob, opts: { lastAttempt: boolean }): Promise<void> {
  try {
    if (job.kind === 'manifest') await writeSubmission(job.record);
    else await writeChunk(job);
  } catch (err) {
    if (!opts.lastAttempt) throw err;
    const reason = `writing the items failed after every retry: ${(err as Error).message}`;
    if (job.kind === 'manifest') await finishSubmission(job.record.accountId, job.record.key, { status: 'failed', failure: reason }, nowIso());
    else await failChunkSet(job.set.accountId, job.set.baseKey, reason, nowIso());
  }
}
