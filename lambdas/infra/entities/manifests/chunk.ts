import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/**
 * One accepted chunk of a chunked upload, in the set's partition: which content it was accepted
 * with (its hash, and the nonce of the request that accepted it) and where that content is stored.
 */
export const chunks = defineEntity({
  model: { entity: 'manifestChunk', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', baseKey: 'string', chunk: 'number', requestHash: 'string', nonce: 'string' }),
    ...required({ payloadKey: 'string', items: 'number', receivedAt: 'string' }),
    /** This chunk's arrival completed the set (its answer is the completing answer). */
    ...optional({ completesSet: 'boolean', ttl: 'number' }),
  },
  indexes: {
    byChunk: { pk: key('pk', 'CHUNKS#${accountId}#${baseKey}', keyless), sk: key('sk', 'CHUNK#${chunk}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ChunkItem = EntityItem<ReturnType<typeof chunks>>;
