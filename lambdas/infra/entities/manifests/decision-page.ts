import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';
import type { DecisionEntry } from '#core/manifests/model';

/** A page of one segment's decisions (`DecisionEntry` rows), in the batch's partition. */
export const decisionPages = defineEntity({
  model: { entity: 'manifestDecisionPage', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', segmentId: 'string', page: 'number', pageKey: 'string' }),
    entries: { type: CustomAttributeType<DecisionEntry[]>('any'), required: true },
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'DECISIONS#${segmentId}#${pageKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type DecisionPageItem = EntityItem<ReturnType<typeof decisionPages>>;
