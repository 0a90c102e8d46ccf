import { createHash, randomUUID } from 'node:crypto';
import type { Principal } from '#core/auth/principal';
import { Conflict, Locked, Unauthorized, Unprocessable } from '#core/errors';
import { isValidManifestSignature } from '#core/manifests/signature';
import type { ChunkMetadata, ManifestSubmission } from '#core/manifests/submission';
import { batchIdFor, chunkProgress, type BatchRecord, type ChunkSetRecord } from '#core/manifests/model';
import { chunkExpiry, closedBody, queuedAnswer } from '#core/manifests/views';
import { now } from '#infra/clock';
import { queues } from '#infra/queues';
import { getAccount, openSigningSecret } from '#infra/entities/auth';
import { answerBytes, claimSubmission, getSubmission, type SubmissionRecord } from '#infra/entities/manifest-submissions';
import { getBatch, openChunkSet, type ChunkRecord } from '#infra/entities/manifests';
import { recordMetric } from '#shared/metrics';
import { acceptChunk, chunkCountProblem, failedUpload, heldChunk, intakeQueue, mismatch, storePayload, type IntakeJob, type StoredPayload } from './intake-job';

/**
 * Manifest intake, the request's half (spec 4.3 / 4.4): validate, store the accepted payload
 * (S3; the twin's blob store), queue its writing and record the acceptance, then answer 202.
 * The items are written by the intake worker (services/manifests/writer.ts), so the answer takes
 * the same time for 10 items or 10,000, and a crash anywhere after the payload is stored loses
 * nothing: the queued job resumes from the stored payload.
 *
 * Order of the writes: payload, then the job, then the acceptance record (a conditional write).
 * The job carries the acceptance record, and the worker makes the same conditional write before
 * anything else, so a request that died between the job and its record is accepted by its job.
 * A request whose record loses to another (same key) answers from the record that won: a replay
 * of the same content, or 409 for other content. No key is ever held "in progress".
 */

/** How long a submission's key, its answer and its status stay readable. */
export const submissionKeepSeconds = 30 * 24 * 3600;

export interface IntakeAnswer {
  status: number;
  body: Record<string, unknown>;
  /** A whole submission's answer as bytes: the first answer, sent again word for word on a replay. */
  bodyJson?: string;
  replayed?: boolean;
  /** The batch the answer is about. */
  batchId?: string;
  /** A whole submission: the acceptance that holds its key (what the intake worker writes). */
  submission?: SubmissionRecord;
}

declare const signatureChecked: unique symbol;

/**
 * The caller once its request passed `checkSignature`. Intake takes no other: a route that feeds
 * it without checking X-Signature does not compile (the alternative interface once did just that).
 */
export type SignedSender = Principal & { readonly [signatureChecked]: true };

/**
 * X-Signature (spec 4.3): when the partner account has a manifest signing secret, the request
 * must carry `sha256=<hex>` of the raw body keyed with it; else 401 before anything is read.
 */
export async function checkSignature(principal: Principal, rawBody: Buffer, header: string | undefined): Promise<SignedSender> {
  const account = await getAccount(principal.accountId);
  const secret = account && (await openSigningSecret(account));
  if (secret && !isValidManifestSignature(secret, rawBody, header)) {
    throw new Unauthorized(header ? 'X-Signature does not match the request body.' : 'X-Signature is required for this account (sha256=<hex HMAC-SHA256 of the raw body>).');
  }
  return principal as SignedSender;
}

/** The batch an update-mode payload names: the caller's own, complete and open, else 422 / 423 (spec 7.2). */
export async function targetBatch(accountId: number, batchId: string): Promise<BatchRecord> {
  const batch = await getBatch(batchId);
  if (!batch || batch.accountId !== accountId || batch.status === 'receiving') {
    throw new Unprocessable(`Batch ${batchId} is not a batch of your account.`, { error: 'unknown_batch', batch_id: batchId });
  }
  if (batch.closedAt) throw closed(batch);
  return batch;
}

/**
 * 423 for a write to a closed batch, saying what the reader can do: a partner asks the broker to
 * reopen it or starts a new batch; the broker (a decision on a closed batch) reopens it.
 */
export const closed = (batch: BatchRecord, reader: 'partner' | 'broker' = 'partner') =>
  new Locked(
    reader === 'broker'
      ? `Batch ${batch.batchId} is closed. Reopen it (POST /v1/couriers/batches/${batch.batchId}/reopen), then send the decision again.`
      : `Batch ${batch.batchId} was closed by the broker. Ask the broker to reopen it, or submit the new shipments without batchId to create a new batch.`,
    { error: 'manifest_closed', ...closedBody(batch) },
  );

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const expiresAt = (at: Date) => Math.floor(at.getTime() / 1000) + submissionKeepSeconds;

/** How a request is answered from the record that holds its key. */
function answerFrom(held: SubmissionRecord, mine: SubmissionRecord): IntakeAnswer {
  if (held.requestHash !== mine.requestHash) throw new Conflict('This Idempotency-Key was already used with different content. Use a fresh key for a new request.');
  const first = held.nonce === mine.nonce;
  const bodyJson = answerBytes(held);
  return { status: first ? 202 : 200, body: JSON.parse(bodyJson) as Record<string, unknown>, bodyJson, replayed: !first, batchId: held.batchId, submission: held };
}

/**
 * How long the queued job of a submission the request writes itself (`writesInRequest`) waits:
 * longer than any request lives (29 s), so it only ever resumes a request that died.
 */
export const inRequestWriteJobDelaySeconds = 60;

/**
 * Accepts a whole manifest (spec 4.3 / 4.4): one key, one batch (its id derived from the key, so
 * every retry and the worker write into the same batch under the same item keys).
 * `writesInRequest`: the caller writes the items before it answers (writer.ts `writeInRequest`),
 * so the queued job is only the safety net of a request that dies, delayed past its lifetime.
 */
export async function submitManifest(
  principal: SignedSender,
  courier: string,
  s: ManifestSubmission,
  key: string | undefined,
  opts: { writesInRequest?: boolean } = {},
): Promise<IntakeAnswer> {
  const idempotencyKey = key ?? randomUUID();
  const payload = JSON.stringify({ courier, submission: s } satisfies StoredPayload);
  const hash = sha256(payload);
  // A repeated key is answered from its record at once, before anything is stored again.
  const known = await getSubmission(principal.accountId, idempotencyKey);
  if (known) return answerFrom(known, { ...known, requestHash: hash, nonce: '' });
  const mode = s.batchId ? 'update' : 'create';
  if (s.batchId) await targetBatch(principal.accountId, s.batchId);
  const started = now();
  const at = started.toISOString();
  const batchId = s.batchId ?? batchIdFor(principal.accountId, idempotencyKey);
  const record: SubmissionRecord = {
    accountId: principal.accountId,
    key: idempotencyKey,
    requestHash: hash,
    nonce: randomUUID(),
    batchId,
    mode,
    courier,
    manifestNumber: s.manifestNumber,
    mawbNumber: s.mawbNumber,
    items: s.items.length,
    payloadKey: `intake/${principal.accountId}/${sha256(idempotencyKey).slice(0, 32)}/${hash}.json`,
    status: 'queued',
    answerJson: JSON.stringify(queuedAnswer({
      key: idempotencyKey,
      manifestNumber: s.manifestNumber,
      mawbNumber: s.mawbNumber,
      batchId,
      mode,
      items: s.items.length,
      at,
      message:
        mode === 'create'
          ? 'Manifest queued for processing.'
          : "Batch update queued: each item's decision (CREATE, UPDATE, SKIP, REJECT) is listed by the batch's decisions once written.",
    })),
    createdAt: at,
    updatedAt: at,
    ttl: expiresAt(started),
  };
  await storePayload(record.payloadKey, payload);
  await queues().send(intakeQueue, { kind: 'manifest', record } satisfies IntakeJob, opts.writesInRequest ? { delaySeconds: inRequestWriteJobDelaySeconds } : {});
  const answer = answerFrom(await claimSubmission(record), record);
  if (!answer.replayed) recordMetric('ManifestsSubmitted', 1, { by: mode });
  return answer;
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

/** The answer of the chunk that completes the set (the spec leaves it open; see docs/partners/manifests.md, "Chunked mode"). */
function completeAnswer(set: ChunkSetRecord, n: number) {
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
    tracking: { manifest_number: set.manifestNumber, batch_id: batchId, mawb_number: set.mawbNumber, items_count: set.totalItems, timestamp: set.updatedAt },
  };
}

/** The answer for a chunk the set holds already: progress as it is now (200, a replay). */
function answerForHeldChunk(set: ChunkSetRecord, n: number): IntakeAnswer {
  if (set.status === 'failed') throw failedUpload(set.failure);
  const body = set.status === 'complete' ? completeAnswer(set, n) : receivingAnswer(set, n, `Chunk ${n} was already received.`);
  return { status: 200, body, replayed: true };
}

/**
 * One chunk of a chunked upload (spec 4.3): checked against the set at arrival, stored, queued
 * for writing and answered. Chunks may come in any order, twice, or at once; the intake worker
 * writes each chunk's items and releases the batch to processing once every chunk is written.
 */
export async function submitChunk(principal: SignedSender, courier: string, s: ManifestSubmission): Promise<IntakeAnswer> {
  const meta = s._chunk_metadata!;
  const n = meta.chunk_number;
  const baseKey = meta.base_idempotency_key.toLowerCase();
  const started = now();
  const at = started.toISOString();
  const mode = s.batchId ? 'update' : 'create';
  if (s.items.length > meta.total_items) mismatch('_chunk_metadata.total_items', `This chunk alone holds ${s.items.length} items, more than total_items.`);
  // A chunk whose items cannot add up to total_items even in an empty upload is refused before
  // anything is stored: no upload is opened for it (a set that already holds chunks only makes
  // the sum tighter, so this never refuses a chunk the set would take).
  const alone = chunkCountProblem({ totalChunks: meta.total_chunks, totalItems: meta.total_items, received: [], receivedItems: 0 }, s.items.length);
  if (alone) mismatch('_chunk_metadata.total_items', alone);
  if (s.batchId) await targetBatch(principal.accountId, s.batchId);
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
    written: [],
    status: 'receiving',
    createdAt: at,
    updatedAt: at,
    expiresAt: chunkExpiry(started),
    ttl: expiresAt(started),
  });
  checkSameSet(set, meta, s, courier);
  const payload = JSON.stringify({ courier, submission: s } satisfies StoredPayload);
  const hash = sha256(payload);
  const record: ChunkRecord = {
    accountId: principal.accountId,
    baseKey,
    chunk: n,
    requestHash: hash,
    nonce: randomUUID(),
    payloadKey: `intake/${principal.accountId}/chunks/${sha256(baseKey).slice(0, 32)}/${n}-${hash}.json`,
    items: s.items.length,
    receivedAt: at,
    ttl: expiresAt(started),
  };
  // A chunk the set holds already is answered at once, before anything is stored again.
  if (set.received.includes(n) || set.status !== 'receiving') {
    if (await heldChunk(set, record)) return answerForHeldChunk(set, n);
  } else {
    // And one that cannot add up with what the set holds is refused before its payload is stored
    // and queued (acceptChunk checks again, against the set as it is when the chunk is reserved).
    const problem = chunkCountProblem(set, record.items);
    if (problem) mismatch('_chunk_metadata.total_items', problem);
  }
  await storePayload(record.payloadKey, payload);
  await queues().send(intakeQueue, { kind: 'chunk', set, chunk: record } satisfies IntakeJob);
  const accepted = await acceptChunk(set, record, started);
  if (!accepted.fresh) return answerForHeldChunk(accepted.set, n);
  const after = accepted.set;
  if (accepted.completes) {
    recordMetric('ManifestsSubmitted', 1, { by: 'chunked' });
    return { status: 202, body: completeAnswer(after, n), batchId: after.batchId };
  }
  return { status: 202, body: receivingAnswer(after, n, `Chunk ${n} of ${after.totalChunks} received.`) };
}
