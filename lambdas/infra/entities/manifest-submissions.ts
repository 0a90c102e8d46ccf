import { defineEntity, isConditionalFailure, service, key, required, optional } from './entity';
import type { ItemDecision } from '../../core/manifests/identity';

const keyless = { casing: 'none' } as const;

/**
 * A whole-manifest submission (spec 4.3) under its Idempotency-Key: the record that makes intake
 * exactly-once. It is written once, complete, when the payload is already stored (S3), so a
 * repeated key is answered at once from it (replay, or 409 for other content) and never waits on
 * a lease. The intake worker then writes the items and moves it to `written` (or `failed`, with
 * the reason the status route shows).
 */
const submissions = defineEntity({
  model: { entity: 'manifestSubmission', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', key: 'string', requestHash: 'string' }),
    /** The request that accepted it (a request whose claim lost to its own queued copy still answers 202). */
    ...required({ nonce: 'string', batchId: 'string', mode: ['create', 'update'], courier: 'string', manifestNumber: 'string' }),
    ...required({ mawbNumber: 'string', items: 'number', payloadKey: 'string', status: ['queued', 'written', 'failed'] }),
    ...optional({ failure: 'string', counts: 'any' }),
    /**
     * The 202 answer's bytes (JSON text), replayed word for word (with 200) for the same key and
     * content: kept as a string because a map's keys come back from the table in another order.
     * `answer`, the map, is what records written before it hold.
     */
    ...optional({ answerJson: 'string', answer: 'any' }),
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ ttl: 'number' }),
  },
  indexes: {
    byKey: { pk: key('pk', 'SUBMISSION#${accountId}#${key}', keyless), sk: key('sk', 'SUBMISSION', keyless) },
  },
} as const);

export interface SubmissionRecord {
  accountId: number;
  key: string;
  requestHash: string;
  nonce: string;
  batchId: string;
  mode: 'create' | 'update';
  courier: string;
  manifestNumber: string;
  mawbNumber: string;
  items: number;
  payloadKey: string;
  status: 'queued' | 'written' | 'failed';
  failure?: string;
  counts?: Record<Lowercase<ItemDecision>, number>;
  /** The 202 answer as sent, byte for byte. */
  answerJson?: string;
  /** The answer of a record written before `answerJson` (its key order is the table's). */
  answer?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  ttl?: number;
}

/** The submission's answer as sent: its bytes, or (a record written before they were kept) its map. */
export const answerBytes = (r: Pick<SubmissionRecord, 'answerJson' | 'answer'>): string => r.answerJson ?? JSON.stringify(r.answer ?? {});

export async function getSubmission(accountId: number, key: string): Promise<SubmissionRecord | undefined> {
  const res = await submissions().get({ accountId, key }).go({ consistent: true });
  return (res.data as SubmissionRecord | null) ?? undefined;
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
