import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';
import { chunkSetStatuses } from '#core/manifests/model';

/** The set of chunks a chunked upload is assembled from: which arrived and which are written. */
export const chunkSets = defineEntity({
  model: { entity: 'manifestChunkSet', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', baseKey: 'string', batchId: 'string', mode: ['create', 'update'], courier: 'string' }),
    ...required({ manifestNumber: 'string', mawbNumber: 'string', totalChunks: 'number', totalItems: 'number' }),
    received: { type: 'set', items: 'number' },
    receivedItems: { type: 'number', required: true, default: 0 },
    /** Chunks whose items are written: the batch is released when every chunk is. */
    written: { type: 'set', items: 'number' },
    ...required({ status: chunkSetStatuses, createdAt: 'string', updatedAt: 'string', expiresAt: 'string' }),
    ...optional({ failure: 'string', ttl: 'number' }),
  },
  indexes: {
    byKey: { pk: key('pk', 'CHUNKS#${accountId}#${baseKey}', keyless), sk: key('sk', 'CHUNKS', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ChunkSetItem = EntityItem<ReturnType<typeof chunkSets>>;
