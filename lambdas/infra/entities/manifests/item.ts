import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';
import type { ManifestItem } from '#core/manifests/submission';

/** One item (line) of a batch, by its item key; also found by AWB across the account's batches (gsi1). */
export const manifestItems = defineEntity({
  model: { entity: 'manifestItem', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', accountId: 'number', itemKey: 'string', awb: 'string', hash: 'string' }),
    /** The run (submission) that last created or changed the item: the pipeline processes it. */
    ...required({ runId: 'string', decision: ['CREATE', 'UPDATE'], line: 'number' }),
    /** The item as the partner declared it. */
    data: { type: CustomAttributeType<ManifestItem>('any'), required: true },
    ...required({ createdAt: 'string', updatedAt: 'string' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'ITEM#${itemKey}', keyless) },
    byAwb: { index: 'gsi1', pk: key('gsi1pk', 'AWB#${awb}', keyless), sk: key('gsi1sk', '${accountId}#${batchId}#${itemKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ManifestStoredItem = EntityItem<ReturnType<typeof manifestItems>>;
