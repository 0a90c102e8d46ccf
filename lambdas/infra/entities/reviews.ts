import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defineEntity, cancellationCodes, isConditionalFailure, service, key, required, optional } from './entity';
import { documentClient } from '../dynamo';
import { batchKey } from './manifests';
import { config } from '../../shared/config';
import type { BatchRecord, ClassificationReview } from '../../core/manifests/model';

const keyless = { casing: 'none' } as const;

/**
 * A broker's decision on one product's tariff code, as a record of its own in the batch's
 * partition (`REVIEW#<revision>`): the batch record keeps only the revision number, so a batch
 * reviewed a thousand times has a thousand of these, not one growing list.
 */
const reviewDecisions = defineEntity({
  model: { entity: 'manifestReviewDecision', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', revision: 'number', revisionKey: 'string', itemKey: 'string', awb: 'string' }),
    ...required({ ncmCode: 'string', reason: 'string', decidedBy: 'string', decidedAt: 'string', runId: 'string' }),
    ...optional({ ncmCodeBefore: 'string', dutyBefore: 'number', dutyAfter: 'number', channelBefore: 'string', channelAfter: 'string' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'REVIEW#${revisionKey}', keyless) },
  },
} as const);

/**
 * The partner-code memory: per account, what a broker decided for a product as the partner
 * describes it (its description, name, category and declared code, normalized: `fingerprint`).
 * The pipeline's ai stage reads it before classifying, so the partner's next manifest gets the
 * broker's code for the same product. One record per (account, product), overwritten by a newer
 * decision; `META` counts them so a stage of an account without any reads one record per page.
 */
const memories = defineEntity({
  model: { entity: 'tariffMemory', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', fingerprint: 'string', ncmCode: 'string', dutyRate: 'number', decidedBy: 'string', decidedAt: 'string' }),
    ...optional({ description: 'string', hsCode: 'string', batchId: 'string' }),
  },
  indexes: {
    byFingerprint: { pk: key('pk', 'ACCOUNT#${accountId}#TARIFFMEMORY', keyless), sk: key('sk', 'CODE#${fingerprint}', keyless) },
  },
} as const);

const memoryMeta = defineEntity({
  model: { entity: 'tariffMemoryMeta', version: '1', service },
  attributes: { ...required({ accountId: 'number' }), ...optional({ count: 'number', updatedAt: 'string' }) },
  indexes: { byAccount: { pk: key('pk', 'ACCOUNT#${accountId}#TARIFFMEMORY', keyless), sk: key('sk', 'META', keyless) } },
} as const);

export interface ReviewDecisionRecord {
  revision: number;
  itemKey: string;
  awb: string;
  ncmCode: string;
  ncmCodeBefore?: string;
  reason: string;
  decidedBy: string;
  decidedAt: string;
  runId: string;
  dutyBefore?: number;
  dutyAfter?: number;
  channelBefore?: string;
  channelAfter?: string;
}

export interface MemoryRecord {
  accountId: number;
  fingerprint: string;
  ncmCode: string;
  dutyRate: number;
  decidedBy: string;
  decidedAt: string;
  description?: string;
  hsCode?: string;
  batchId?: string;
}

const revisionKey = (n: number) => String(n).padStart(8, '0');

/** `Put`/`Update` params of ElectroDB as one TransactItems entry. */
function putEntry(params: Record<string, unknown>) {
  const { ReturnValues: _r, ...rest } = params;
  return { Put: rest };
}

/**
 * Applies one broker correction, all or nothing: the batch moves to the results of `runId` with
 * its new summary and revision, only if it is still on `expected` (its finished run and review
 * revision, completed and not closed); the decision record is written only if its revision is new;
 * the memory of the product is written, and counted when it is new. Answers `conflict` when the
 * batch moved (another correction, a new run, a close): the caller reads it again.
 */
export async function applyReview(
  batch: BatchRecord,
  change: { runId: string; summary: BatchRecord['summary']; at: string },
  decision: ReviewDecisionRecord,
  memory: MemoryRecord | undefined,
  memoryIsNew: boolean,
): Promise<'applied' | 'conflict'> {
  const table = config.tableName();
  const expectedRevision = batch.reviewRevision ?? 0;
  const items: Record<string, unknown>[] = [
    {
      Update: {
        TableName: table,
        Key: batchKey(batch.batchId),
        UpdateExpression: 'SET finishedRunId = :run, summary = :summary, reviewRevision = :next, updatedAt = :at',
        ConditionExpression:
          'attribute_exists(pk) AND attribute_not_exists(closedAt) AND finishedRunId = :from AND #status = :completed AND lastRunId = :last AND ' +
          (expectedRevision ? 'reviewRevision = :expected' : 'attribute_not_exists(reviewRevision)'),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':run': change.runId,
          ':summary': change.summary,
          ':next': decision.revision,
          ':at': change.at,
          ':from': batch.finishedRunId,
          ':completed': 'completed',
          ':last': batch.lastRunId,
          ...(expectedRevision ? { ':expected': expectedRevision } : {}),
        },
      },
    },
    putEntry(
      reviewDecisions()
        .put({ batchId: batch.batchId, revisionKey: revisionKey(decision.revision), ...decision })
        .where(({ revisionKey: k }, { notExists }) => notExists(k))
        .params(),
    ),
  ];
  if (memory) {
    items.push(putEntry(memories().put(memory).params()));
    if (memoryIsNew) {
      const { ReturnValues: _r, ...update } = memoryMeta().update({ accountId: memory.accountId }).add({ count: 1 }).set({ updatedAt: change.at }).params() as Record<string, unknown>;
      items.push({ Update: update });
    }
  }
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: items as never }));
    return 'applied';
  } catch (err) {
    const codes = cancellationCodes(err);
    if (codes?.includes('ConditionalCheckFailed')) return 'conflict';
    throw err;
  }
}

/** One page of a batch's broker decisions, newest first; a cursor this query did not answer is `undefined`. */
export async function listReviewDecisions(batchId: string, opts: { cursor?: string | null; limit: number }) {
  const res = await withCursor(() => reviewDecisions().query.byBatch({ batchId }).go({ cursor: opts.cursor ?? null, limit: opts.limit, order: 'desc' }));
  return res && { decisions: res.data as unknown as ReviewDecisionRecord[], cursor: res.cursor };
}

/**
 * A query with a caller's cursor: ElectroDB refuses one it cannot read, DynamoDB one whose key is
 * not of the query's partition; either is the caller's error, answered as undefined.
 */
export async function withCursor<T>(query: () => Promise<T>): Promise<T | undefined> {
  try {
    return await query();
  } catch (err) {
    const e = err as { name?: string; message?: string; cause?: { name?: string } };
    if (e?.name === 'ElectroError' || e?.name === 'ValidationException' || e?.cause?.name === 'ValidationException' || /cursor|ExclusiveStartKey|start key/i.test(e?.message ?? '')) return undefined;
    throw err;
  }
}

/** The review on a product as the product keeps it. */
export function reviewOf(d: ReviewDecisionRecord): ClassificationReview {
  return { revision: d.revision, ncm_code_before: d.ncmCodeBefore ?? null, ncm_code: d.ncmCode, reason: d.reason, decided_by: d.decidedBy, decided_at: d.decidedAt };
}

export async function getMemory(accountId: number, fingerprint: string): Promise<MemoryRecord | undefined> {
  const res = await memories().get({ accountId, fingerprint }).go();
  return (res.data as MemoryRecord | null) ?? undefined;
}

/** How many products the account's memory holds (0 when it has none: a stage then reads nothing else). */
export async function memoryCount(accountId: number): Promise<number> {
  const res = await memoryMeta().get({ accountId }).go();
  return (res.data?.count as number | undefined) ?? 0;
}

/** The memories of these fingerprints of one account (BatchGetItem, 100 at a time). */
export async function getMemories(accountId: number, fingerprints: readonly string[]): Promise<Map<string, MemoryRecord>> {
  const out = new Map<string, MemoryRecord>();
  for (let i = 0; i < fingerprints.length; i += 100) {
    const res = await memories()
      .get(fingerprints.slice(i, i + 100).map((fingerprint) => ({ accountId, fingerprint })))
      .go({ concurrency: 2 });
    for (const m of res.data) out.set(m.fingerprint, m as MemoryRecord);
    if (res.unprocessed.length) {
      const again = await getMemories(accountId, res.unprocessed.map((u) => u.fingerprint as string));
      for (const [k, v] of again) out.set(k, v);
    }
  }
  return out;
}

/** Keeps that the review up to `revision` was announced (never moves back). */
export async function markReviewAnnounced(batchId: string, revision: number): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: config.tableName(),
        Key: batchKey(batchId),
        UpdateExpression: 'SET reviewAnnounced = :r',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(reviewAnnounced) OR reviewAnnounced < :r)',
        ExpressionAttributeValues: { ':r': revision },
      }),
    );
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}
