import { isConditionalFailure } from './entity';
import { idempotencyKeys } from './idempotency/idempotency-key';

export type Claim =
  | { outcome: 'claimed' }
  | { outcome: 'replay'; resultId: string; result?: unknown }
  | { outcome: 'mismatch' }
  | { outcome: 'in-progress' };

export interface KeyRef {
  scope: string;
  accountId: number;
  key: string;
}

export interface ClaimOptions {
  /** How long a pending claim blocks others before a retry may take the work over. */
  leaseSeconds?: number;
  /** How long the key (and its answer) is kept. */
  keepSeconds?: number;
}

export async function claimKey(ref: KeyRef, requestHash: string, at: Date, opts: ClaimOptions = {}): Promise<Claim> {
  const { leaseSeconds = 60, keepSeconds = 24 * 3600 } = opts;
  const item = {
    ...ref,
    requestHash,
    status: 'pending' as const,
    leaseUntil: new Date(at.getTime() + leaseSeconds * 1000).toISOString(),
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    expiresAt: Math.floor(at.getTime() / 1000) + keepSeconds,
  };
  try {
    await idempotencyKeys()
      .put(item)
      .where(
        ({ requestHash: hash, status, leaseUntil }, { notExists, eq, lt }) =>
          `${notExists(hash)} OR (${eq(status, 'pending')} AND ${lt(leaseUntil, at.toISOString())})`,
      )
      .go();
    return { outcome: 'claimed' };
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  const existing = (await idempotencyKeys().get(ref).go({ consistent: true })).data;
  if (!existing) return claimKey(ref, requestHash, at, opts);
  if (existing.requestHash !== requestHash) return { outcome: 'mismatch' };
  if (existing.status === 'done' && existing.resultId) return { outcome: 'replay', resultId: existing.resultId, result: existing.result };
  return { outcome: 'in-progress' };
}

export async function completeKey(ref: KeyRef, resultId: string, result?: unknown, at?: Date): Promise<void> {
  await idempotencyKeys()
    .patch(ref)
    .set({ status: 'done', resultId, ...(result === undefined ? {} : { result }), ...(at ? { updatedAt: at.toISOString() } : {}) })
    .go();
}

/** Gives a claim back after the work failed, so the client's retry can do it. */
export async function releaseKey(ref: KeyRef): Promise<void> {
  await idempotencyKeys().delete(ref).go();
}

/** A key's record as stored: its state, when it was first used and the id of its result. */
export async function readKey(ref: KeyRef) {
  return (await idempotencyKeys().get(ref).go({ consistent: true })).data;
}
