import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';
import type { ItemDecision } from '#core/manifests/identity';

/**
 * A whole-manifest submission (spec 4.3) under its Idempotency-Key: the record that makes intake
 * exactly-once. It is written once, complete, when the payload is already stored (S3), so a
 * repeated key is answered at once from it (replay, or 409 for other content) and never waits on
 * a lease. The intake worker then writes the items and moves it to `written` (or `failed`, with
 * the reason the status route shows).
 */
export const submissions = defineEntity({
  model: { entity: 'manifestSubmission', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', key: 'string', requestHash: 'string' }),
    /** The request that accepted it (a request whose claim lost to its own queued copy still answers 202). */
    ...required({ nonce: 'string', batchId: 'string', mode: ['create', 'update'], courier: 'string', manifestNumber: 'string' }),
    ...required({ mawbNumber: 'string', items: 'number', payloadKey: 'string', status: ['queued', 'written', 'failed'] }),
    ...optional({ failure: 'string' }),
    /** While the worker writes its items: how many are written, and since when it writes (the status route's estimate). */
    ...optional({ written: 'number', writingFrom: 'string' }),
    /** The decisions of its items, once written. */
    counts: { type: CustomAttributeType<Record<Lowercase<ItemDecision>, number>>('any') },
    /**
     * The 202 answer's bytes (JSON text), replayed word for word (with 200) for the same key and
     * content: kept as a string because a map's keys come back from the table in another order.
     * `answer`, the map, is what records written before it hold.
     */
    ...optional({ answerJson: 'string' }),
    answer: { type: CustomAttributeType<Record<string, unknown>>('any') },
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ ttl: 'number' }),
  },
  indexes: {
    byKey: { pk: key('pk', 'SUBMISSION#${accountId}#${key}', keyless), sk: key('sk', 'SUBMISSION', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type SubmissionItem = EntityItem<ReturnType<typeof submissions>>;
