import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, required, optional, keyless } from '../entity';

/**
 * A broker's decision on one product's tariff code, as a record of its own in the batch's
 * partition (`REVIEW#<revision>`, and `REVIEW#<revision>#<item key>` for each product of a group decision): the batch record keeps only the revision number, so a batch
 * reviewed a thousand times has a thousand of these, not one growing list.
 */
export const reviewDecisions = defineEntity({
  model: { entity: 'manifestReviewDecision', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', revision: 'number', revisionKey: 'string', itemKey: 'string', awb: 'string' }),
    ...required({ ncmCode: 'string', reason: 'string', decidedBy: 'string', decidedAt: 'string', runId: 'string' }),
    ...optional({ ncmCodeBefore: 'string', dutyBefore: 'number', dutyAfter: 'number', channelBefore: 'string', channelAfter: 'string' }),
    /** A group decision's (issue 40): the group and how many products it decided at once. */
    ...optional({ groupId: 'string', groupSize: 'number' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'REVIEW#${revisionKey}', keyless) },
  },
} as const);

/** An item of the entity as a read answers it. */
export type ReviewDecisionItem = EntityItem<ReturnType<typeof reviewDecisions>>;
