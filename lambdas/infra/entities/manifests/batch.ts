import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';
import { batchStatuses, type BatchRecord, type ManifestHeader } from '#core/manifests/model';
import type { PipelineState } from '#core/pipeline/stages';

/** A manifest batch: one import of a manifest (its items and decision log live in its partition; see manifests.ts). */
export const manifestBatches = defineEntity({
  model: { entity: 'manifestBatch', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', accountId: 'number', manifestNumber: 'string', mawbNumber: 'string', courier: 'string' }),
    ...required({ status: batchStatuses }),
    header: { type: CustomAttributeType<ManifestHeader>('any') },
    progress: { type: 'number', required: true, default: 0 },
    itemCount: { type: 'number', required: true, default: 0 },
    awbCount: { type: 'number', required: true, default: 0 },
    lastRunId: { type: 'string' },
    /** The latest run that finished: its results (products in parts, and the download files) are the batch's full result. */
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ finishedRunId: 'string', closedAt: 'string', closedBy: 'string' }),
    summary: { type: CustomAttributeType<NonNullable<BatchRecord['summary']>>('any') },
    pipeline: { type: CustomAttributeType<PipelineState>('any') },
    ...optional({ reviewRevision: 'number', reviewAnnounced: 'number' }),
    reviewWrites: { type: CustomAttributeType<NonNullable<BatchRecord['reviewWrites']>>('any') },
  },
  indexes: {
    byId: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'BATCH', keyless) },
    byAccount: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNT#${accountId}#BATCHES', keyless), sk: key('gsi1sk', '${createdAt}#${batchId}', keyless) },
    byManifest: {
      index: 'gsi2',
      pk: key('gsi2pk', 'ACCOUNT#${accountId}#MANIFEST#${manifestNumber}', keyless),
      sk: key('gsi2sk', '${createdAt}#${batchId}', keyless),
    },
    /**
     * Every account's batches, newest first: the broker's queue (services/review). One partition
     * of the index for all batches: a batch is one write per manifest, far below a partition's rate.
     */
    everyAccount: { index: 'gsi3', pk: key('gsi3pk', 'BATCHES', keyless), sk: key('gsi3sk', '${createdAt}#${batchId}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ManifestBatchItem = EntityItem<ReturnType<typeof manifestBatches>>;
