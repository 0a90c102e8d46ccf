/**
 * `Idempotency-Key` handling shared by the upload use cases (transport documents, stored manifest
 * files): the key is claimed with a conditional write before any work, so repeated or concurrent
 * requests with one key do the work once.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '#core/auth/principal';
import { Conflict } from '#core/errors';
import { claimKey, completeKey, releaseKey, type ClaimOptions, type KeyRef } from '#infra/entities/idempotency';
import { now } from '#infra/clock';

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
 * The claim protocol behind every Idempotency-Key: claim the key with a conditional write, run
 * the work once, record what it made (and, when given, the answer to replay word for word); the
 * same key with the same request replays, with another request -> 409, while the first is still
 * running -> 409 with Retry-After. A failed work gives the key back for the client's retry.
 */
export async function claimed<T>(
  ref: KeyRef,
  hash: string,
  opts: ClaimOptions,
  run: {
    work: () => Promise<T>;
    /** The id of what the work made, and the answer to keep for replays, if any. */
    kept: (result: T) => { resultId: string; answer?: unknown };
    replay: (resultId: string, answer: unknown) => Promise<T>;
  },
): Promise<{ result: T; replayed: boolean }> {
  const claim = await claimKey(ref, hash, now(), opts);
  if (claim.outcome === 'mismatch') throw new Conflict('This Idempotency-Key was already used with different content. Use a fresh key for a new request.');
  if (claim.outcome === 'in-progress') throw new Conflict('A request with this Idempotency-Key is still in progress; retry shortly.', {}, { 'Retry-After': '5' });
  if (claim.outcome === 'replay') return { result: await run.replay(claim.resultId, claim.result), replayed: true };
  try {
    const result = await run.work();
    const { resultId, answer } = run.kept(result);
    await completeKey(ref, resultId, answer, now());
    return { result, replayed: false };
  } catch (err) {
    await releaseKey(ref).catch(() => undefined);
    throw err;
  }
}

/**
 * Runs `work` once per key, per account and scope (see `claimed`), replaying the record the first
 * request made. Without a key the work simply runs.
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
  return claimed({ scope, accountId: principal.accountId, key }, requestHash(request), {}, {
    work,
    kept: (result) => ({ resultId: kept.idOf(result) }),
    replay: async (resultId) => {
      const result = await kept.load(resultId);
      if (result) return result;
      throw new Conflict(`The ${kept.noun} this Idempotency-Key created no longer exists.`);
    },
  });
}
