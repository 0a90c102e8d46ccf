/**
 * `Idempotency-Key` handling shared by the upload use cases (transport documents, stored manifest
 * files): the key is claimed with a conditional write before any work, so repeated or concurrent
 * requests with one key do the work once.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../core/auth/principal';
import { Conflict } from '../core/errors';
import { claimKey, completeKey, releaseKey } from '../infra/entities/idempotency';
import { now } from '../infra/clock';

/** The fingerprint of a request's content: the same key with another fingerprint is a conflict. */
export function requestHash(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** How the record a key produced is named, stored and read back for a replay. */
export interface KeptResult<T> {
  /** For messages: "document", "file". */
  noun: string;
  idOf(result: T): string;
  load(id: string): Promise<T | undefined>;
}

/**
 * Runs `work` once per key, per account and scope: the same key with the same request replays
 * the first result, with another request -> 409, while the first is still running -> 409.
 * Without a key the work simply runs. A failed work gives the key back for the client's retry.
 */
export async function once<T>(
  principal: Principal,
  scope: string,
  key: string | undefined,
  request: unknown,
  work: () => Promise<T>,
  kept: KeptResult<T>,
): Promise<{ result: T; replayed: boolean }> {
  if (!key) return { result: await work(), replayed: false };
  const ref = { scope, accountId: principal.accountId, key };
  const claim = await claimKey(ref, requestHash(request), now());
  if (claim.outcome === 'mismatch') throw new Conflict('This Idempotency-Key was already used with different content.');
  if (claim.outcome === 'in-progress') throw new Conflict('A request with this Idempotency-Key is still in progress; retry shortly.');
  if (claim.outcome === 'replay') {
    const result = await kept.load(claim.resultId);
    if (result) return { result, replayed: true };
    throw new Conflict(`The ${kept.noun} this Idempotency-Key created no longer exists.`);
  }
  try {
    const result = await work();
    await completeKey(ref, kept.idOf(result));
    return { result, replayed: false };
  } catch (err) {
    await releaseKey(ref).catch(() => undefined);
    throw err;
  }
}
