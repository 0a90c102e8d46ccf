import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';

/** The account's sync lock: one sync at a time. */
export const syncLocks = defineEntity({
  model: { entity: 'syncLock', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', syncId: 'string' }),
    /** Epoch seconds after which another sync may take the lock (a crashed worker's run). */
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byAccount: { pk: key('pk', 'SYNC#${accountId}', keyless), sk: key('sk', 'LOCK', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type SyncLockItem = EntityItem<ReturnType<typeof syncLocks>>;
