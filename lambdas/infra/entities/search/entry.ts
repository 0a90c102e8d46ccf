import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';
import { searchKinds, type SearchEntry } from '#core/search/index-terms';

/**
 * One index item of the broker's search (core/search/index-terms `SearchPack`): the values of one
 * key (a word, or an identifier's first characters) of one batch segment, batch or document, at
 * most a few dozen. The partition is the kind and the key's first characters, so a query is one
 * Query with `begins_with` on the sort key; written with the records, by plain puts of the same
 * key (a retried write writes the same item).
 */
export const searchPacks = defineEntity({
  model: { entity: 'searchPack', version: '1', service },
  attributes: {
    ...required({ kind: searchKinds, head: 'string', key: 'string', scope: 'string', part: 'number', accountId: 'number' }),
    ...optional({ batchId: 'string', manifestNumber: 'string', documentId: 'number' }),
    entries: { type: CustomAttributeType<SearchEntry[]>('any'), required: true },
  },
  indexes: {
    byKey: { pk: key('pk', 'SEARCH#${kind}#${head}', keyless), sk: key('sk', '${key}#${scope}#${part}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type SearchPackItem = EntityItem<ReturnType<typeof searchPacks>>;
