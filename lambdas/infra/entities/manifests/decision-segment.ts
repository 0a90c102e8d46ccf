import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';
import type { DecisionSegment } from '#core/manifests/model';

/**
 * One submission's (or one chunk's) decisions, as a record of its own beside the batch: the batch
 * record stays the same size however many updates it receives. Sorted by when the submission
 * was accepted, so the log reads oldest first.
 */
export const decisionSegments = defineEntity({
  model: { entity: 'manifestDecisionSegment', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', segmentId: 'string', runId: 'string', mode: ['create', 'update'], at: 'string' }),
    ...required({ count: 'number' }),
    counts: { type: CustomAttributeType<DecisionSegment['counts']>('any'), required: true },
    ...optional({ chunk: 'number' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'SEGMENT#${at}#${segmentId}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type DecisionSegmentItem = EntityItem<ReturnType<typeof decisionSegments>>;
