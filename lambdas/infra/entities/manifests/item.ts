import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';
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
    /** The broker's search by tax id (core/search/index-terms `taxIdSearchKeys`): absent on an item without one. */
    ...optional({ searchTaxHead: 'string', searchTaxRef: 'string' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'ITEM#${itemKey}', keyless) },
    byAwb: { index: 'gsi1', pk: key('gsi1pk', 'AWB#${awb}', keyless), sk: key('gsi1sk', '${accountId}#${batchId}#${itemKey}', keyless) },
    /** Every account's items by tax id, for the broker's search by prefix (sparse: only items written with the search keys). */
    byTaxId: {
      index: 'gsi2',
      condition: (item: { searchTaxRef?: string }) => Boolean(item.searchTaxRef),
      pk: key('gsi2pk', 'SEARCH#taxid#${searchTaxHead}', keyless),
      sk: key('gsi2sk', '${searchTaxRef}', keyless),
    },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ManifestStoredItem = EntityItem<ReturnType<typeof manifestItems>>;
