import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional } from '../entity';

/**
 * Idempotency keys: one item per (scope, account, key), claimed with a conditional write before
 * any work, so concurrent or repeated requests with one key do the work once. A claim that is
 * still `pending` after its lease (the worker died) may be taken over.
 */
export const idempotencyKeys = defineEntity({
  model: { entity: 'idempotencyKey', version: '1', service },
  attributes: {
    ...required({ scope: 'string', accountId: 'number', key: 'string', requestHash: 'string', status: ['pending', 'done'] }),
    ...required({ leaseUntil: 'string' }),
    /** The id of what the first request created, once done. */
    resultId: { type: 'string' },
    /** The first answer, for replays that must repeat it word for word. */
    ...optional({ result: 'any', createdAt: 'string', updatedAt: 'string' }),
    expiresAt: { type: 'number', field: 'ttl' },
  },
  indexes: {
    byKey: { pk: key('pk', 'IDEM#${scope}#${accountId}#${key}'), sk: key('sk', 'IDEM') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type IdempotencyKeyItem = EntityItem<ReturnType<typeof idempotencyKeys>>;
