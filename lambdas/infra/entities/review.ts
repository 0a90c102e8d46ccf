import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, getEvery, type TransactItem, type TransactPut, type TransactUpdate } from './entity';
import { documentClient } from '../dynamo';
import { batchKey, updateBatchIf } from './manifests';
import { config } from '#shared/config';
import { batchWriteAll } from '../batch-write';
import type { BatchRecord, ClassificationReview } from '#core/manifests/model';
import { reviewDecisions, type ReviewDecisionItem } from './review/review-decision';
import { tariffMemories, type TariffMemoryItem } from './review/tariff-memory';
import { tariffMemoryMetas } from './review/tariff-memory-meta';

/** A broker's decision as the review reads and writes it (its key parts aside). */
export type ReviewDecisionRecord = Omit<ReviewDecisionItem, 'batchId' | 'revisionKey'>;

/** What a broker decided for a product as the partner describes it. */
export type MemoryRecord = TariffMemoryItem;

const revisionKey = (n: number) => String(n).padStart(8, '0');

/** `Put`/`Update` params of ElectroDB as one TransactItems entry. */
type WithReturnValues<P> = P & { ReturnValues?: string };

/** `Put` params of ElectroDB as one TransactItems entry (a transaction's Put takes no ReturnValues). */
function putEntry(params: WithReturnValues<TransactPut>): TransactItem {
  const { ReturnValues: _r, ...rest } = params;
  return { Put: rest };
}

/**
 * Applies one broker correction, all or nothing: the batch moves to the results of `runId` with
 * its new summary and revision, only if it is still on `expected` (its finished run and review
 * revision, completed and not closed); the decision record is written only if its revision is new;
 * the memory of the product is written under each of its keys, and the keys not yet remembered are
 * counted. Answers `conflict` when the
 * batch moved (another correction, a new run, a close): the caller reads it again.
 */
export async function applyReview(
  batch: BatchRecord,
  change: { runId: string; summary: BatchRecord['summary']; at: string },
  decision: ReviewDecisionRecord,
  memories: readonly MemoryRecord[],
  newMemories: number,
): Promise<'applied' | 'conflict'> {
  const items: TransactItem[] = [
    batchMove(batch, { ...change, revision: decision.revision }),
    putEntry(
      reviewDecisions()
        .put({ batchId: batch.batchId, revisionKey: revisionKey(decision.revision), ...decision })
        .where(({ revisionKey: k }, { notExists }) => notExists(k))
        .params<WithReturnValues<TransactPut>>(),
    ),
  ];
  for (const memory of memories) items.push(putEntry(tariffMemories().put(memory).params<WithReturnValues<TransactPut>>()));
  if (newMemories > 0 && memories.length) items.push(memoryCountUp(memories[0].accountId, newMemories, change.at));
  return transact(items);
}

/**
 * The batch's move to the results of `change.runId` with its new summary and revision, only if it
 * is still on the run and revision read (completed, not closed); with `writes`, the mark of a group
 * decision's records still to write.
 */
function batchMove(batch: BatchRecord, change: { runId: string; summary: BatchRecord['summary']; at: string; revision: number; writes?: BatchRecord['reviewWrites'] }): TransactItem {
  const expectedRevision = batch.reviewRevision ?? 0;
  return {
    Update: {
      TableName: config.tableName(),
      Key: batchKey(batch.batchId),
      UpdateExpression: 'SET finishedRunId = :run, summary = :summary, reviewRevision = :next, updatedAt = :at' + (change.writes ? ', reviewWrites = :writes' : ''),
      ConditionExpression:
        'attribute_exists(pk) AND attribute_not_exists(closedAt) AND attribute_not_exists(reviewWrites) AND finishedRunId = :from AND #status = :completed AND lastRunId = :last AND ' +
        (expectedRevision ? 'reviewRevision = :expected' : 'attribute_not_exists(reviewRevision)'),
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':run': change.runId,
        ':summary': change.summary,
        ':next': change.revision,
        ':at': change.at,
        ':from': batch.finishedRunId,
        ':completed': 'completed',
        ':last': batch.lastRunId,
        ...(expectedRevision ? { ':expected': expectedRevision } : {}),
        ...(change.writes ? { ':writes': change.writes } : {}),
      },
    },
  };
}

function memoryCountUp(accountId: number, count: number, at: string): TransactItem {
  const { ReturnValues: _r, ...update } = tariffMemoryMetas().update({ accountId }).add({ count }).set({ updatedAt: at }).params<WithReturnValues<TransactUpdate>>();
  return { Update: update };
}

async function transact(items: TransactItem[]): Promise<'applied' | 'conflict'> {
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: items }));
    return 'applied';
  } catch (err) {
    const codes = cancellationCodes(err);
    if (codes?.includes('ConditionalCheckFailed')) return 'conflict';
    throw err;
  }
}

/**
 * A group decision's commit (issue 40): the batch moves to the decided results with the mark of
 * the records still to write (`reviewWrites`), and the account's memory count grows by the keys
 * not yet remembered, all or nothing. The records follow (`writeGroupRecords`), then the mark is
 * cleared; a crash between leaves the mark for the next reader to finish.
 */
export async function applyGroupReview(
  batch: BatchRecord,
  change: { runId: string; summary: BatchRecord['summary']; at: string; revision: number; writes: NonNullable<BatchRecord['reviewWrites']> },
  memoryCount: { accountId: number; newMemories: number },
): Promise<'applied' | 'conflict'> {
  const items = [batchMove(batch, change)];
  if (memoryCount.newMemories > 0) items.push(memoryCountUp(memoryCount.accountId, memoryCount.newMemories, change.at));
  return transact(items);
}

/** A group decision's product records (`REVIEW#<revision>#<item key>`) and memories, in BatchWriteItem calls; a repeat writes the same items. */
export async function writeGroupRecords(batchId: string, decisions: readonly ReviewDecisionRecord[], memories: readonly MemoryRecord[]): Promise<void> {
  function* requests() {
    for (let i = 0; i < decisions.length; i += 25) {
      const slice = decisions.slice(i, i + 25).map((d) => ({ batchId, revisionKey: `${revisionKey(d.revision)}#${d.itemKey}`, ...d }));
      yield* reviewDecisions().put(slice).params<{ RequestItems: never }[]>();
    }
    for (let i = 0; i < memories.length; i += 25) yield* tariffMemories().put(memories.slice(i, i + 25)).params<{ RequestItems: never }[]>();
  }
  await batchWriteAll(requests());
}

/** Clears the mark of a group decision's records once they are written (only that revision's). */
export async function clearReviewWrites(batchId: string, revision: number): Promise<void> {
  await updateBatchIf(batchId, { UpdateExpression: 'REMOVE reviewWrites', ConditionExpression: 'reviewWrites.revision = :r', ExpressionAttributeValues: { ':r': revision } });
}

/** One page of a batch's broker decisions, newest first; a cursor this query did not answer is `undefined`. */
export async function listReviewDecisions(batchId: string, opts: { cursor?: string | null; limit: number }) {
  const res = await withCursor(() => reviewDecisions().query.byBatch({ batchId }).go({ cursor: opts.cursor ?? null, limit: opts.limit, order: 'desc' }));
  return res && { decisions: res.data, cursor: res.cursor };
}

/**
 * The newest `limit` product decisions of a batch after revision `after` (those of one review),
 * newest first, and whether there are more: what `manifest.reviewed` lists.
 */
export async function reviewDecisionsAfter(batchId: string, after: number, limit: number): Promise<{ decisions: ReviewDecisionRecord[]; more: boolean }> {
  const res = await reviewDecisions()
    .query.byBatch({ batchId })
    .between({ revisionKey: revisionKey(after + 1) }, { revisionKey: '99999999~' })
    .go({ limit: limit + 1, order: 'desc' });
  return { decisions: res.data.slice(0, limit), more: res.data.length > limit };
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
  const res = await tariffMemories().get({ accountId, fingerprint }).go({ consistent: true });
  return res.data ?? undefined;
}

/** How many products the account's memory holds (0 when it has none: a stage then reads nothing else). */
export async function memoryCount(accountId: number): Promise<number> {
  const res = await tariffMemoryMetas().get({ accountId }).go();
  return res.data?.count ?? 0;
}

/** One page of an account's partner-code memory, in key order; a cursor this query did not answer is `undefined`. */
export async function listMemories(accountId: number, opts: { cursor?: string | null; limit: number }) {
  const res = await withCursor(() => tariffMemories().query.byFingerprint({ accountId }).go({ cursor: opts.cursor ?? null, limit: opts.limit }));
  return res && { memories: res.data, cursor: res.cursor };
}

/** The memories of these fingerprints of one account (BatchGetItem, 100 at a time). */
export async function getMemories(accountId: number, fingerprints: readonly string[]): Promise<Map<string, MemoryRecord>> {
  const memories = await getEvery(
    fingerprints.map((fingerprint) => ({ accountId, fingerprint })),
    (ks) => tariffMemories().get(ks).go({ concurrency: 2 }),
  );
  return new Map(memories.map((m) => [m.fingerprint, m]));
}

/** Keeps that the review up to `revision` was announced (never moves back). */
export async function markReviewAnnounced(batchId: string, revision: number): Promise<void> {
  await updateBatchIf(batchId, {
    UpdateExpression: 'SET reviewAnnounced = :r',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(reviewAnnounced) OR reviewAnnounced < :r)',
    ExpressionAttributeValues: { ':r': revision },
  });
}
