import { isConditionalFailure } from './entity';
import { submissions, type SubmissionItem } from './manifest-submissions/manifest-submission';

/** A whole-manifest submission under its Idempotency-Key (see manifest-submissions/manifest-submission.ts). */
export type SubmissionRecord = SubmissionItem;

/** The submission's answer as sent: its bytes, or (a record written before they were kept) its map. */
export const answerBytes = (r: Pick<SubmissionRecord, 'answerJson' | 'answer'>): string => r.answerJson ?? JSON.stringify(r.answer ?? {});

export async function getSubmission(accountId: number, key: string): Promise<SubmissionRecord | undefined> {
  const res = await submissions().get({ accountId, key }).go({ consistent: true });
  return res.data ?? undefined;
}

/**
 * Accepts the submission unless its key is taken; answers the record that holds the key (this
 * one, or the one written first, which the caller compares by hash and nonce).
 */
export async function claimSubmission(record: SubmissionRecord): Promise<SubmissionRecord> {
  try {
    await submissions()
      .put(record)
      .where(({ key }, { notExists }) => notExists(key))
      .go();
    return record;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  return (await getSubmission(record.accountId, record.key))!;
}

/** How many of a queued submission's items the worker has written, since `writingFrom` (the status route's counts and estimate). */
export async function recordWritten(accountId: number, key: string, written: number, writingFrom: string, at: string): Promise<void> {
  await submissions()
    .patch({ accountId, key })
    .set({ written, writingFrom, updatedAt: at })
    .where(({ status }, { eq }) => eq(status, 'queued'))
    .go()
    .catch((err) => {
      if (!isConditionalFailure(err)) throw err;
    });
}

/**
 * The submission's end, once: `written` (its items are written and processing requested; the
 * status route follows the batch from here, `counts` are its decisions) or `failed` with why.
 */
export async function finishSubmission(accountId: number, key: string, end: { status: 'written'; counts: SubmissionRecord['counts'] } | { status: 'failed'; failure: string }, at: string): Promise<void> {
  await submissions()
    .patch({ accountId, key })
    .set({ ...end, updatedAt: at })
    .where(({ status }, { eq }) => eq(status, 'queued'))
    .go()
    .catch((err) => {
      if (!isConditionalFailure(err)) throw err;
    });
}
