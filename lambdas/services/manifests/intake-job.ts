import { Conflict, Gone, Unprocessable, ValidationFailed } from '#core/errors';
import type { ManifestSubmission } from '#core/manifests/submission';
import type { ChunkSetRecord } from '#core/manifests/model';
import { isExpired } from '#core/manifests/views';
import { blobs } from '#infra/blobs';
import type { SubmissionRecord } from '#infra/entities/manifest-submissions';
import { getChunk, getChunkSet, reserveChunk, type ChunkRecord } from '#infra/entities/manifests';

/**
 * The intake job, what both halves of manifest intake share: the request (intake.ts) stores the
 * payload, queues the job and accepts it; the worker (writer.ts) takes the job, accepts it again
 * (the same conditional write, so a request that died after queueing is accepted by its job) and
 * reads the payload back. Neither half imports the other.
 */

/** The queue the intake worker consumes. */
export const intakeQueue = 'manifestIntake';

/** What the intake queue carries: the acceptance the worker makes sure of, then writes. */
export type IntakeJob = { kind: 'manifest'; record: SubmissionRecord } | { kind: 'chunk'; set: ChunkSetRecord; chunk: ChunkRecord };

/** The stored payload: the validated submission and the slug it came under. */
export interface StoredPayload {
  courier: string;
  submission: ManifestSubmission;
}

export async function storePayload(key: string, payload: string): Promise<void> {
  await blobs().put(key, Buffer.from(payload), 'application/json');
}

export async function readPayload(key: string): Promise<StoredPayload | undefined> {
  const body = await blobs().get(key);
  return body ? (JSON.parse(body.toString('utf8')) as StoredPayload) : undefined;
}

export function mismatch(field: string, message: string): never {
  throw new ValidationFailed({ [field]: [message] });
}

/**
 * Whether `count` more items in chunk `n` can still add up to `total_items`: every chunk still
 * missing after this one holds at least one item, and the last chunk makes the total exact.
 */
export function chunkCountProblem(set: Pick<ChunkSetRecord, 'totalChunks' | 'totalItems' | 'received' | 'receivedItems'>, count: number): string | undefined {
  const after = set.receivedItems + count;
  const missingAfter = set.totalChunks - set.received.length - 1;
  if (after > set.totalItems) return `The chunks would hold ${after} items, more than the ${set.totalItems} declared in total_items.`;
  if (missingAfter === 0 && after !== set.totalItems) return `This is the last missing chunk: the chunks would hold ${after} items, not the ${set.totalItems} declared in total_items.`;
  if (after + missingAfter > set.totalItems) {
    return `The chunks would hold ${after} items with ${missingAfter} chunk(s) still to come (at least one item each), more than the ${set.totalItems} declared in total_items.`;
  }
  return undefined;
}

export const failedUpload = (failure: string | undefined) =>
  new Unprocessable(`This chunked upload failed: ${failure}. Start again with a new base_idempotency_key.`, { error: 'chunked_upload_failed' });

/**
 * Accepts one chunk into its set: refused at arrival when it cannot belong (another manifest,
 * other content for a chunk already received, counts that can no longer add up to total_items,
 * an expired or failed set). Concurrent chunks retry on the set's condition, never on a key
 * another request holds. Answers the set after this chunk, or `held` for a chunk received before.
 */
export async function acceptChunk(set: ChunkSetRecord, record: ChunkRecord, at: Date): Promise<{ set: ChunkSetRecord; fresh: boolean; completes: boolean }> {
  let seen = set;
  for (let attempt = 1; ; attempt++) {
    if (seen.received.includes(record.chunk) || seen.status !== 'receiving') {
      const held = await heldChunk(seen, record);
      if (held) return { set: seen, fresh: held.nonce === record.nonce, completes: Boolean(held.completesSet) };
      if (seen.status === 'failed') throw failedUpload(seen.failure);
      if (seen.status === 'complete') mismatch('_chunk_metadata.chunk_number', `Every chunk of this upload was already received; chunk ${record.chunk} is not one of them.`);
    }
    if (isExpired(seen, at)) throw new Gone(`This chunked upload expired at ${seen.expiresAt} with chunks missing. Start again with a new base_idempotency_key.`, { error: 'chunked_upload_expired' });
    const problem = chunkCountProblem(seen, record.items);
    if (problem) mismatch('_chunk_metadata.total_items', problem);
    const res = await reserveChunk(seen, record, at.toISOString());
    if (res.outcome === 'reserved') return { set: res.set, fresh: true, completes: res.set.status === 'complete' };
    if (res.outcome === 'held') {
      if (res.chunk.requestHash !== record.requestHash) throw chunkConflict(record.chunk);
      // Held with this request's nonce: its queued copy got there first, on its behalf.
      return { set: (await getChunkSet(set.accountId, set.baseKey))!, fresh: res.chunk.nonce === record.nonce, completes: Boolean(res.chunk.completesSet) };
    }
    if (attempt >= 100) throw new Conflict('The upload is changing too fast to take this chunk; retry it.', {}, { 'Retry-After': '1' });
    seen = (await getChunkSet(set.accountId, set.baseKey))!;
  }
}

const chunkConflict = (n: number) => new Conflict(`Chunk ${n} of this upload was already received with different content.`);

/** The chunk as the set holds it, if it does: the same content, or 409. */
export async function heldChunk(set: ChunkSetRecord, record: ChunkRecord): Promise<ChunkRecord | undefined> {
  if (!set.received.includes(record.chunk)) return undefined;
  const held = await getChunk(set.accountId, set.baseKey, record.chunk);
  if (held && held.requestHash !== record.requestHash) throw chunkConflict(record.chunk);
  return held;
}

