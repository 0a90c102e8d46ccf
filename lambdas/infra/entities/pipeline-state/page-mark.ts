import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, keyless } from '../entity';

/** That page `page` of `stage` of run `runId` was counted: one small item beside the batch. */
export const pageMarks = defineEntity({
  model: { entity: 'pipelinePageMark', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', runId: 'string', stage: 'string', page: 'number', ttl: 'number' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'PAGEDONE#${runId}#${stage}#${page}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type PageMarkItem = EntityItem<ReturnType<typeof pageMarks>>;
