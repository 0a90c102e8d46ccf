import { randomUUID } from 'node:crypto';
import type { Principal } from '../core/auth/principal';
import { Gone, Locked, Unauthorized, Unprocessable, ValidationFailed } from '../core/errors';
import { isValidManifestSignature } from '../core/manifests/signature';
import type { ChunkMetadata, ManifestSubmission } from '../core/manifests/submission';
import { batchIdFor, chunkProgress, decisionsPerPage, type BatchRecord, type ChunkSetRecord, type DecisionSegment } from '../core/manifests/model';
import { keyItems, resolveItems, type Resolution } from '../core/manifests/resolve';
import { chunkExpiry, closedBody, isExpired, queuedAnswer } from '../core/manifests/views';
import { now } from '../infra/clock';
import { getAccount } from '../infra/entities/accounts';
import type { KeyRef } from '../infra/entities/idempotency';
import { claimed, requestHash } from './once';
import {
  createBatch,
  finishChunkSet,
  getBatch,
  getChunkSet,
  getItems,
  markChunkReceived,
  openChunkSet,
  otherOwnersOfAwb,
  putItems,
  recordSegment,
  startRun,
} from '../infra/entities/manifests';
import { requestProcessing } from '../infra/pipeline';

/** How long a submission's key, its answer and its status stay readable. */
const submissionKeepSeconds = 30 * 24 * 3600;

export interface IntakeAnswer {
  status: number;
  body: Record<string, unknown>;
  replayed?: boolean;
  /** The batch the answer is about, kept with the key for the status endpoint. */
  batchId?: string;
}



/**
 * X-Signature (spec 4.3): when the partner account has a manifest signing secret, the request
 * must carry `sha256=<hex>` of the raw body keyed with it; else 401 before anything is read.
 */
export async function checkSignature(principal: Principal, rawBody: Buffer, header: string | undefined): Promise<void> {
  const account = await getAccount(principal.accountId);
  const secret = account?.manifestSigningSecret;
  if (!secret) return;
  if (!isValidManifestSignature(secret, rawBody, header)) {
    throw new Unauthorized(header ? 'X-Signature does not match the request body.' : 'X-Signature is required for this account (sha256=<hex HMAC-SHA256 of the raw body>).');
  }
}

/** The batch an update-mode payload names: the caller's own and open, else 422 / 423 (spec 7.2). */
async function targetBatch(principal: Principal, batchId: string): Promise<BatchRecord> {
  const batch = await getBatch(batchId);
  if (!batch || batch.accountId !== principal.accountId || batch.status === 'receiving') {
    throw new Unprocessable(`Batch ${batchId} is not a batch of your account.`, { error: 'unknown_batch', batch_id: batchId });
  }
  if (batch.closedAt) throw closed(batch);
  return batch;
}

const closed = (batch: BatchRecord) =>
  new Locked(
    `Batch ${batch.batchId} was closed by the broker. Ask the broker to reopen it, or submit the new shipments without batchId to create a new batch.`,
    { error: 'manifest_closed', ...closedBody(batch) },
  );

function headerOf(s: ManifestSubmission) {
  return {
    airline: s.airline,
    flightNumber: s.flightNumber,
    aircraftRegistration: s.aircraftRegistration,
    originAirport: s.originAirport,
    customsBrokerCode: s.customsBrokerCode,
  };
}

function newBatch(principal: Principal, courier: string, s: ManifestSubmission, batchId: string, status: BatchRecord['status'], at: string): BatchRecord {
  return {
    batchId,
    accountId: principal.accountId,
    manifestNumber: s.manifestNumber,
    mawbNumber: s.mawbNumber,
    courier,
    header: headerOf(s),
    status,
    progress: 0,
    itemCount: 0,
    awbCount: 0,
    segments: [],
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Decides and writes one payload's items into a batch: update mode reads the stored items under
 * the same keys (and, for new AWBs, whether another account holds them), then CREATE and UPDATE
 * items and the decision log pages go out in batched writes. Only what is written here counts.
 */
async function writeItems(
  principal: Principal,
  batch: { batchId: string; manifestNumber: string },
  s: ManifestSubmission,
  run: { runId: string; segmentId: string; mode: 'create' | 'update'; chunk?: number; at: string },
): Promise<{ resolution: Resolution; segment: DecisionSegment }> {
  const keyed = keyItems(s.items, { accountId: principal.accountId, manifestNumber: batch.manifestNumber, batchId: batch.batchId });
  // A batch in create mode holds only items of this same run (a retry finds its own writes, which
  // keep their CREATE), so only update mode compares with what is stored.
  const existing = run.mode === 'create' ? new Map() : await getItems(batch.batchId, [...new Set(keyed.map((k) => k.key))]);
  const crossTeam = new Set<string>();
  if (run.mode === 'update') {
    const newAwbs = [...new Set(keyed.filter((k) => k.awb && !existing.has(k.key)).map((k) => k.awb))];
    for (const awb of newAwbs) if (await otherOwnersOfAwb(awb, principal.accountId)) crossTeam.add(awb);
  }
  const resolution = resolveItems(keyed, { accountId: principal.accountId, batchId: batch.batchId, runId: run.runId, at: run.at }, existing, crossTeam);
  const pages = [];
  for (let i = 0, page = 0; i < resolution.entries.length; i += decisionsPerPage, page++) {
    pages.push({ batchId: batch.batchId, segmentId: run.segmentId, page, entries: resolution.entries.slice(i, i + decisionsPerPage) });
  }
  await putItems(resolution.writes, pages);
  const segment: DecisionSegment = {
    id: run.segmentId,
    runId: run.runId,
    mode: run.mode,
    ...(run.chunk ? { chunk: run.chunk } : {}),
    at: run.at,
    count: resolution.entries.length,
    counts: resolution.counts,
  };
  return { resolution, segment };
}

function outcomeMessage(r: Resolution, mode: 'create' | 'update'): string {
  const c = r.counts;
  if (mode === 'create') return c.reject ? `Manifest queued for processing; ${c.reject} item(s) rejected (see the batch's decisions).` : 'Manifest queued for processing.';
  const parts = `${c.create} created, ${c.update} updated, ${c.skip} skipped, ${c.reject} rejected`;
  return c.create + c.update > 0 ? `Batch update queued for processing: ${parts}.` : `Nothing to process: ${parts}.`;
}

/** Runs `work` under a claimed key (services/once.ts), keeping its answer for word-for-word replays. */
async function underKey(
  ref: KeyRef,
  hash: string,
  keepSeconds: number,
  work: () => Promise<IntakeAnswer>,
  replay: (result: unknown, resultId: string) => Promise<IntakeAnswer>,
): Promise<IntakeAnswer> {
  const { result } = await claimed(ref, hash, { leaseSeconds: 120, keepSeconds }, {
    work,
    kept: (answer) => ({ resultId: answer.batchId ?? 'done', answer: answer.body }),
    replay: (resultId, answer) => replay(answer, resultId),
  });
  return result;
}

/**
 * Submits a whole manifest (spec 4.3 / 4.4): one key, one batch. The key's claim makes retries
 * and concurrent duplicates run the work once; the batch id is derived from the key, so even a
 * submission taken over after a crash writes into the same batch with the same item keys.
 */
export async function submitManifest(principal: Principal, courier: string, s: ManifestSubmission, key: string | undefined): Promise<IntakeAnswer> {
  const idempotencyKey = key ?? randomUUID();
  const ref = { scope: 'manifests.submit', accountId: principal.accountId, key: idempotencyKey };
  return underKey(
    ref,
    requestHash({ courier, s }),
    submissionKeepSeconds,
    async () => {
      const at = now().toISOString();
      const mode = s.batchId ? 'update' : 'create';
      const batch = s.batchId ? await targetBatch(principal, s.batchId) : newBatch(principal, courier, s, batchIdFor(principal.accountId, idempotencyKey), 'receiving', at);
      if (mode === 'create') await createBatch(batch);
      const { resolution, segment } = await writeItems(principal, batch, s, { runId: idempotencyKey, segmentId: idempotencyKey, mode, at });
      const dispatch = resolution.writes.length > 0;
      const recorded = await recordSegment(batch.batchId, segment, { created: resolution.counts.create, dispatch, awbs: resolution.newAwbs, at, runId: idempotencyKey });
      if (recorded === 'closed') throw closed((await getBatch(batch.batchId))!);
      if (dispatch) {
        await requestProcessing({ accountId: principal.accountId, batchId: batch.batchId, runId: idempotencyKey, manifestNumber: batch.manifestNumber, mode, items: resolution.writes.length });
      }
      const body = queuedAnswer({
        key: idempotencyKey,
        manifestNumber: batch.manifestNumber,
        mawbNumber: s.mawbNumber,
        batchId: batch.batchId,
        mode,
        items: s.items.length,
        at,
        message: outcomeMessage(resolution, mode),
      });
      return { status: 202, body, batchId: batch.batchId };
    },
    async (result, batchId) => ({ status: 200, body: result as Record<string, unknown>, replayed: true, batchId }),
  );
}

function mismatch(field: string, message: string): never {
  throw new ValidationFailed({ [field]: [message] });
}

/** Every chunk must describe the same manifest as the chunk that opened the set. */
function checkSameSet(set: ChunkSetRecord, meta: ChunkMetadata, s: ManifestSubmission, courier: string): void {
  if (set.totalChunks !== meta.total_chunks) mismatch('_chunk_metadata.total_chunks', `Must be ${set.totalChunks}, as in the first chunk received.`);
  if (set.totalItems !== meta.total_items) mismatch('_chunk_metadata.total_items', `Must be ${set.totalItems}, as in the first chunk received.`);
  if (set.mawbNumber !== s.mawbNumber) mismatch('mawbNumber', `Must be ${set.mawbNumber}, as in the first chunk received.`);
  if (set.manifestNumber !== s.manifestNumber) mismatch('manifestNumber', `Must be ${set.manifestNumber}, as in the first chunk received.`);
  if ((set.mode === 'update' ? set.batchId : undefined) !== s.batchId) mismatch('batchId', `Must be the same in every chunk of one upload.`);
  if (set.courier !== courier) mismatch('_chunk_metadata.base_idempotency_key', `This upload was started under the ${set.courier} slug.`);
}

function receivingAnswer(set: ChunkSetRecord, n: number, message: string) {
  const p = chunkProgress(set.totalChunks, set.received);
  return { success: true, status: 'receiving', message, chunk_number: n, total_chunks: set.totalChunks, progress: p };
}

/** The answer of the chunk that completes the set (the spec leaves it open; see the README). */
function completeAnswer(set: ChunkSetRecord, n: number, at: string) {
  const batchId = set.batchId;
  return {
    success: true,
    status: 'complete',
    message: `All ${set.totalChunks} chunks received; manifest queued for processing.`,
    chunk_number: n,
    total_chunks: set.totalChunks,
    progress: chunkProgress(set.totalChunks, set.received),
    idempotency_key: set.baseKey,
    manifest_number: set.manifestNumber,
    batch_id: batchId,
    mode: set.mode,
    tracking: { manifest_number: set.manifestNumber, batch_id: batchId, mawb_number: set.mawbNumber, items_count: set.totalItems, timestamp: at },
  };
}

/**
 * Releases a complete set's batch to processing and marks the set complete. Every step is
 * conditional, so a request that finds the set complete-but-unfinished (its completer died)
 * finishes it; the pipeline start is keyed by (batch, run), so a repeated start runs once.
 */
async function completeSet(principal: Principal, set: ChunkSetRecord, at: string): Promise<void> {
  if (set.receivedItems !== set.totalItems) {
    const failure = `the chunks hold ${set.receivedItems} items, not the ${set.totalItems} declared in total_items`;
    await finishChunkSet(principal.accountId, set.baseKey, { status: 'failed', failure, at });
    throw failedUpload(failure);
  }
  const started = await startRun(set.batchId, set.baseKey, at);
  if (started === 'closed') throw closed((await getBatch(set.batchId))!);
  await requestProcessing({ accountId: principal.accountId, batchId: set.batchId, runId: set.baseKey, manifestNumber: set.manifestNumber, mode: set.mode, items: set.receivedItems });
  await finishChunkSet(principal.accountId, set.baseKey, { status: 'complete', at });
}

const failedUpload = (failure: string | undefined) =>
  new Unprocessable(`This chunked upload failed: ${failure}. Start again with a new base_idempotency_key.`, { error: 'chunked_upload_failed' });

/** The answer for a chunk the set already holds: progress as it is now (200, a replay). */
async function answerForReceivedChunk(principal: Principal, baseKey: string, n: number): Promise<IntakeAnswer> {
  let set = (await getChunkSet(principal.accountId, baseKey))!;
  if (set.status === 'failed') throw failedUpload(set.failure);
  if (set.status === 'receiving' && set.received.length === set.totalChunks) {
    await completeSet(principal, set, now().toISOString());
    set = { ...set, status: 'complete' };
  }
  const body = set.status === 'complete' ? completeAnswer(set, n, set.updatedAt) : receivingAnswer(set, n, `Chunk ${n} was already received.`);
  return { status: 200, body, replayed: true };
}

/**
 * One chunk of a chunked upload (spec 4.3). Each chunk's items are decided and written as it
 * arrives, so assembling never holds more than one chunk in memory; the chunk that completes the
 * set (exactly one: the set's update is conditional and serialized) releases the batch to
 * processing. Chunks may come in any order, twice, or at once.
 */
export async function submitChunk(principal: Principal, courier: string, s: ManifestSubmission): Promise<IntakeAnswer> {
  const meta = s._chunk_metadata!;
  const n = meta.chunk_number;
  const baseKey = meta.base_idempotency_key.toLowerCase();
  const started = now();
  const mode = s.batchId ? 'update' : 'create';
  if (s.items.length > meta.total_items) mismatch('_chunk_metadata.total_items', `This chunk alone holds ${s.items.length} items, more than total_items.`);
  if (s.batchId) await targetBatch(principal, s.batchId);
  const set = await openChunkSet({
    accountId: principal.accountId,
    baseKey,
    batchId: s.batchId ?? batchIdFor(principal.accountId, `chunks:${baseKey}`),
    mode,
    courier,
    manifestNumber: s.manifestNumber,
    mawbNumber: s.mawbNumber,
    totalChunks: meta.total_chunks,
    totalItems: meta.total_items,
    received: [],
    receivedItems: 0,
    status: 'receiving',
    createdAt: started.toISOString(),
    updatedAt: started.toISOString(),
    expiresAt: chunkExpiry(started),
    ttl: Math.floor(started.getTime() / 1000) + submissionKeepSeconds,
  });
  checkSameSet(set, meta, s, courier);
  const ref = { scope: 'manifests.chunk', accountId: principal.accountId, key: `${baseKey}#${n}` };
  return underKey(
    ref,
    requestHash({ courier, s }),
    submissionKeepSeconds,
    async () => {
      if (set.received.includes(n) || set.status !== 'receiving') return answerForReceivedChunk(principal, baseKey, n);
      if (isExpired(set, started)) throw new Gone(`This chunked upload expired at ${set.expiresAt} with chunks missing. Start again with a new base_idempotency_key.`, { error: 'chunked_upload_expired' });
      const othersDone = set.received.length === set.totalChunks - 1;
      if (set.receivedItems + s.items.length > set.totalItems || (othersDone && set.receivedItems + s.items.length !== set.totalItems)) {
        mismatch('_chunk_metadata.total_items', `The chunks hold ${set.receivedItems + s.items.length} items${othersDone ? '' : ' so far'}, not the ${set.totalItems} declared.`);
      }
      const at = started.toISOString();
      const batch = s.batchId ? await targetBatch(principal, s.batchId) : newBatch(principal, courier, s, set.batchId, 'receiving', at);
      if (mode === 'create') await createBatch(batch);
      const { resolution, segment } = await writeItems(principal, batch, s, {
        runId: baseKey,
        segmentId: `${baseKey}#${String(n).padStart(2, '0')}`,
        mode,
        chunk: n,
        at,
      });
      // Chunks never dispatch on their own: the batch is released once, when the set completes.
      const recorded = await recordSegment(batch.batchId, segment, { created: resolution.counts.create, dispatch: false, awbs: resolution.newAwbs, at, runId: baseKey });
      if (recorded === 'closed') throw closed((await getBatch(batch.batchId))!);
      const after = await markChunkReceived(principal.accountId, baseKey, n, s.items.length, at);
      if (!after) return answerForReceivedChunk(principal, baseKey, n);
      if (after.received.length < after.totalChunks) return { status: 202, body: receivingAnswer(after, n, `Chunk ${n} of ${after.totalChunks} received.`) };
      await completeSet(principal, after, at);
      return { status: 202, body: completeAnswer({ ...after, status: 'complete' }, n, at) };
    },
    async () => answerForReceivedChunk(principal, baseKey, n),
  );
}
