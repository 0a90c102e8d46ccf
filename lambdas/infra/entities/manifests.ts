import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, getEvery, isConditionalFailure, type TransactPut, type TransactUpdate } from './entity';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';
import { batchWriteAll } from '../batch-write';
import type { BatchRecord, ChunkSetRecord, DecisionEntry, DecisionSegment, StoredItem } from '#core/manifests/model';
import { isVisible } from '#core/manifests/model';
import { manifestBatches } from './manifests/batch';
import { manifestItems } from './manifests/item';
import { decisionPages } from './manifests/decision-page';
import { decisionSegments } from './manifests/decision-segment';
import { chunkSets, type ChunkSetItem } from './manifests/chunk-set';
import { chunks, type ChunkItem } from './manifests/chunk';
import { searchPackRequests } from './search';
import { taxIdSearchKeys, type SearchPack } from '#core/search/index-terms';

/**
 * A manifest batch (one import of a manifest), its items, its decision log and, in chunked
 * mode, the set of chunks it is assembled from. Items and decision pages live in the batch's
 * partition, so a batch reads as one Query and its items are addressed by (batch, item key).
 * Keys keep their case (`casing: 'none'`): item keys and AWBs come from partners.
 */

/* ---- batches ---- */

/** Creates the batch unless it exists (a retried submission derives the same id). */
export async function createBatch(b: BatchRecord): Promise<boolean> {
  try {
    await manifestBatches()
      .put(b)
      .where(({ batchId }, { notExists }) => notExists(batchId))
      .go();
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}

/** Batches by id, those that exist (the search's hits). */
export async function getBatches(batchIds: readonly string[]): Promise<BatchRecord[]> {
  if (!batchIds.length) return [];
  return getEvery(
    batchIds.map((batchId) => ({ batchId })),
    (ks) => manifestBatches().get(ks).go({ concurrency: 4 }),
  );
}

export async function getBatch(batchId: string): Promise<BatchRecord | undefined> {
  const res = await manifestBatches().get({ batchId }).go({ consistent: true });
  return res.data ?? undefined;
}

/** The account's batches, newest first, created within [from, to] (ISO timestamps) when given. */
export async function listBatches(accountId: number, range: { from?: string; to?: string } = {}): Promise<BatchRecord[]> {
  const res = await manifestBatches().query.byAccount({ accountId }).go({ pages: 'all', order: 'desc' });
  return res.data.filter((b) => (!range.from || b.createdAt >= range.from) && (!range.to || b.createdAt <= range.to));
}

/** Every account's batches, newest first, a page at a time (the broker's queue; batches written before 2026-11-28 are not in it). */
export async function listAllBatches(opts: { cursor?: string | null; limit: number }): Promise<{ batches: BatchRecord[]; cursor: string | null }> {
  const res = await manifestBatches().query.everyAccount({}).go({ order: 'desc', limit: opts.limit, cursor: opts.cursor ?? null });
  return { batches: res.data, cursor: res.cursor };
}

/**
 * Every account's batches created since `from` (an ISO timestamp), oldest first: the broker's inbox
 * (issue 40) reads a window of them, never the whole history.
 */
export async function listBatchesSince(from: string): Promise<BatchRecord[]> {
  const res = await manifestBatches().query.everyAccount({}).gte({ createdAt: from }).go({ order: 'asc', pages: 'all' });
  return res.data;
}

/**
 * Keeps a batch's review counts counted after its run finished (results written before issue 40
 * carried none): only while the batch is still on that run, and only once.
 */
export async function setReviewCounts(batchId: string, runId: string, counts: { review_pending: number; review_at_stake: number }): Promise<void> {
  await updateBatchIf(batchId, {
    UpdateExpression: 'SET summary.review_pending = :p, summary.review_at_stake = :s',
    ConditionExpression: 'finishedRunId = :run AND attribute_exists(summary) AND attribute_not_exists(summary.review_pending)',
    ExpressionAttributeValues: { ':p': counts.review_pending, ':s': counts.review_at_stake, ':run': runId },
  });
}

/** One raw update of a batch record that applies only under its condition; a condition not met changes nothing and is no error. */
export async function updateBatchIf(batchId: string, update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> }): Promise<void> {
  try {
    await documentClient().send(new UpdateCommand({ TableName: config.tableName(), Key: batchKey(batchId), ...update }));
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** The account's latest batch of the manifest whose items are all written (see `isVisible`). */
export async function latestBatchOf(accountId: number, manifestNumber: string): Promise<BatchRecord | undefined> {
  let cursor: string | null = null;
  do {
    const res: { data: BatchRecord[]; cursor: string | null } = await manifestBatches().query.byManifest({ accountId, manifestNumber }).go({ order: 'desc', limit: 10, cursor });
    const found = res.data.find(isVisible);
    if (found) return found;
    cursor = res.cursor;
  } while (cursor);
  return undefined;
}

/** Whether the account has a batch of this manifest number still being written (hidden until then), among its 10 latest. */
export async function hasReceivingBatch(accountId: number, manifestNumber: string): Promise<boolean> {
  const res = await manifestBatches().query.byManifest({ accountId, manifestNumber }).go({ order: 'desc', limit: 10 });
  return res.data.some((b) => b.status === 'receiving');
}

/**
 * Records one segment of decisions: the segment's record and the batch's counts in one
 * transaction, conditional on the segment being new and the batch open, so a repeated segment
 * (a retried or resumed write) counts once. Refused (423) if the batch was closed.
 */
export async function recordSegment(batchId: string, segment: DecisionSegment, changes: { created: number; awbs: number; at: string }): Promise<'recorded' | 'already' | 'closed'> {
  const put = decisionSegments()
    .put({ batchId, segmentId: segment.id, runId: segment.runId, mode: segment.mode, chunk: segment.chunk, at: segment.at, count: segment.count, counts: segment.counts })
    .where(({ segmentId }, { notExists }) => notExists(segmentId))
    .params<TransactPut>();
  const counts = manifestBatches()
    .update({ batchId })
    .add({ itemCount: changes.created, awbCount: changes.awbs })
    .set({ updatedAt: changes.at })
    .where(({ closedAt, batchId: id }, { notExists, exists }) => `${exists(id)} AND ${notExists(closedAt)}`)
    .params<TransactUpdate>();
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: put }, { Update: counts }] }));
    return 'recorded';
  } catch (err) {
    const codes = cancellationCodes(err);
    if (!codes) throw err;
    if (codes[0] === 'ConditionalCheckFailed') return 'already';
    if (codes[1] === 'ConditionalCheckFailed') return 'closed';
    throw err;
  }
}

/** Every decision segment of the batch, oldest first. */
export async function listSegments(batchId: string): Promise<DecisionSegment[]> {
  const res = await decisionSegments().query.byBatch({ batchId }).go({ pages: 'all' });
  return res.data.map((g) => ({ id: g.segmentId, runId: g.runId, mode: g.mode, ...(g.chunk ? { chunk: g.chunk } : {}), at: g.at, count: g.count, counts: g.counts }));
}

/**
 * Hands run `runId` of the batch to processing (status pending), once: a batch already on that
 * run is left as it is. Refused when the batch is closed.
 */
export async function startRun(batchId: string, runId: string, at: string): Promise<'started' | 'already' | 'closed'> {
  try {
    await manifestBatches()
      .update({ batchId })
      .set({ status: 'pending', progress: 0, lastRunId: runId, updatedAt: at })
      .where(({ closedAt, lastRunId, batchId: id }, { notExists, ne, exists }) => `${exists(id)} AND ${notExists(closedAt)} AND (${notExists(lastRunId)} OR ${ne(lastRunId, runId)})`)
      .go();
    return 'started';
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return (await getBatch(batchId))?.closedAt ? 'closed' : 'already';
  }
}

/** Closes (`closedAt` set, first close wins) or reopens (removed) a batch; answers the batch as it now is. */
export async function setBatchClosed(batchId: string, closed: { at: string; by: string } | null): Promise<BatchRecord | undefined> {
  try {
    // A patch: written only to a batch that exists (the conditions ask that too), so it answers the whole batch.
    const u = manifestBatches().patch({ batchId });
    const res = closed
      ? await u
          .set({ closedAt: closed.at, closedBy: closed.by, updatedAt: closed.at })
          .where(({ batchId: id, closedAt }, { exists, notExists }) => `${exists(id)} AND ${notExists(closedAt)}`)
          .go({ response: 'all_new' })
      : await u.remove(['closedAt', 'closedBy']).where(({ batchId: id }, { exists }) => exists(id)).go({ response: 'all_new' });
    return res.data;
  } catch (err) {
    if (isConditionalFailure(err)) return getBatch(batchId);
    throw err;
  }
}

/** The batch record's table key, for the pipeline's counter updates (lambdas/infra/entities/pipeline-state.ts). */
export function batchKey(batchId: string): Record<string, string> {
  return manifestBatches().get({ batchId }).params<{ Key: Record<string, string> }>().Key;
}

/* ---- items ---- */

/** An item record's table key, for writes that touch only a field inside `data` (lambdas/infra/entities/manifest-items-taxid.ts). */
export function itemKeyOf(batchId: string, itemKey: string): Record<string, string> {
  return manifestItems().get({ batchId, itemKey }).params<{ Key: Record<string, string> }>().Key;
}

/** The stored items of a batch under these keys (what update mode compares against). */
export async function getItems(batchId: string, keys: readonly string[]): Promise<Map<string, Pick<StoredItem, 'itemKey' | 'hash' | 'runId' | 'decision' | 'createdAt'>>> {
  const items = await getEvery(
    keys.map((itemKey) => ({ batchId, itemKey })),
    (ks) => manifestItems().get(ks).go({ attributes: ['itemKey', 'hash', 'runId', 'decision', 'createdAt'], consistent: true, concurrency: 4 }),
  );
  return new Map(items.map((it) => [it.itemKey, it]));
}

/** The stored items of a batch under these keys, whole (the review shows what the partner declared). */
export async function getStoredItems(batchId: string, keys: readonly string[]): Promise<Map<string, StoredItem>> {
  const items = await getEvery(
    keys.map((itemKey) => ({ batchId, itemKey })),
    (ks) => manifestItems().get(ks).go({ concurrency: 4 }),
  );
  return new Map(items.map((it) => [it.itemKey, it]));
}

/**
 * Writes items (and decision pages) in BatchWriteItem calls, retrying unprocessed writes. Each
 * call's request is built when a writer is free for it, so a 100,000-item payload never exists
 * twice in memory (once as items, once as marshalled requests).
 */
export async function putItems(
  records: readonly StoredItem[],
  pages: readonly { segmentId: string; page: number; entries: DecisionEntry[]; batchId: string }[],
  search: readonly SearchPack[] | null = null,
): Promise<void> {
  // With the search on, each item carries its tax id's search keys (gsi2): no write of its own.
  const withKeys = (r: StoredItem) => (search ? { ...r, ...taxIdSearchKeys(r, r.batchId) } : r);
  function* requests() {
    for (let i = 0; i < records.length; i += 25) yield* manifestItems().put(records.slice(i, i + 25).map(withKeys)).params<{ RequestItems: never }[]>();
    for (let i = 0; i < pages.length; i += 25) {
      const slice = pages.slice(i, i + 25).map((p) => ({ ...p, pageKey: pageKey(p.page), entries: p.entries }));
      yield* decisionPages().put(slice).params<{ RequestItems: never }[]>();
    }
    // The search's index items of these items (core/search/index-terms), in the same calls' stream.
    yield* searchPackRequests(search ?? []);
  }
  await batchWriteAll(requests());
}

/**
 * One page of every account's items whose tax id starts with `digits` (the search's gsi2 keys),
 * in tax-id order, from `start` (the last sort key read).
 */
export async function itemsByTaxIdPrefix(digits: string, head: string, opts: { limit: number; start?: string }): Promise<{ items: StoredItem[]; last: string | null }> {
  const pk = `SEARCH#taxid#${head}`;
  const res = await documentClient().send(
    new QueryCommand({
      TableName: config.tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND begins_with(gsi2sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': digits },
      Limit: opts.limit,
      ...(opts.start ? { ExclusiveStartKey: JSON.parse(opts.start) } : {}),
    }),
  );
  const items = (res.Items ?? []).flatMap((Item) => manifestItems().parse({ Item }).data ?? []);
  return { items, last: res.LastEvaluatedKey ? JSON.stringify(res.LastEvaluatedKey) : null };
}

/** Accounts other than `accountId` that hold an item with this AWB (update mode's cross-team check). */
export async function otherOwnersOfAwb(awb: string, accountId: number): Promise<boolean> {
  const res = await manifestItems().query.byAwb({ awb }).go({ attributes: ['accountId'], limit: 20 });
  return res.data.some((it) => it.accountId !== accountId);
}

/** The account's items with this AWB, across its batches (client-info corrections, quota). */
export async function itemsOfAwb(accountId: number, awb: string): Promise<StoredItem[]> {
  const res = await manifestItems().query.byAwb({ awb, accountId }).go({ pages: 'all' });
  return res.data;
}

/**
 * Every item of a batch, in item-key order. Pages of at most 1,000 items (about what DynamoDB's
 * 1 MB page holds of them anyway): DynamoDB Local reads a page without a Limit about three times
 * slower (measured: 10,000 items in 3.0 s of its CPU against 1.1 s).
 */
export async function allItemsOf(batchId: string): Promise<StoredItem[]> {
  const res = await manifestItems().query.byBatch({ batchId }).go({ pages: 'all', limit: 1000 });
  return res.data;
}

export async function listItems(batchId: string, opts: { cursor?: string | null; limit?: number } = {}) {
  const res = await manifestItems().query.byBatch({ batchId }).go({ cursor: opts.cursor ?? null, limit: opts.limit });
  return { items: res.data, cursor: res.cursor };
}

/* ---- decision pages ---- */

const pageKey = (page: number) => String(page).padStart(6, '0');

export async function getDecisionPages(batchId: string, refs: readonly { segmentId: string; page: number }[]): Promise<Map<string, DecisionEntry[]>> {
  const out = new Map<string, DecisionEntry[]>();
  if (!refs.length) return out;
  const res = await decisionPages()
    .get(refs.map((r) => ({ batchId, segmentId: r.segmentId, pageKey: pageKey(r.page) })))
    .go({ consistent: true });
  for (const p of res.data) out.set(`${p.segmentId}#${p.page}`, p.entries);
  return out;
}

/* ---- chunk sets ---- */

/** One accepted chunk of a chunked upload. */
export type ChunkRecord = ChunkItem;

const asSet = (raw: ChunkSetItem): ChunkSetRecord => ({
  ...raw,
  received: [...(raw.received ?? [])].sort((a, b) => a - b),
  written: [...(raw.written ?? [])].sort((a, b) => a - b),
});

/** Starts the chunk set unless another chunk already did; answers the set as stored. */
export async function openChunkSet(set: ChunkSetRecord): Promise<ChunkSetRecord> {
  try {
    await chunkSets()
      .put({ ...set, received: undefined, written: undefined })
      .where(({ baseKey }, { notExists }) => notExists(baseKey))
      .go();
    return set;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  return (await getChunkSet(set.accountId, set.baseKey))!;
}

export async function getChunkSet(accountId: number, baseKey: string): Promise<ChunkSetRecord | undefined> {
  const res = await chunkSets().get({ accountId, baseKey }).go({ consistent: true });
  return res.data ? asSet(res.data) : undefined;
}

export async function getChunk(accountId: number, baseKey: string, chunk: number): Promise<ChunkRecord | undefined> {
  const res = await chunks().get({ accountId, baseKey, chunk }).go({ consistent: true });
  return res.data ?? undefined;
}

export type ChunkReservation =
  | { outcome: 'reserved'; set: ChunkSetRecord }
  /** The chunk was already accepted: with this content (its record) or with other content. */
  | { outcome: 'held'; chunk: ChunkRecord }
  /** The set moved on under us (another chunk landed): read it again and decide again. */
  | { outcome: 'changed' };

/**
 * Accepts chunk `record.chunk` into the set as it was read (`seen`): the chunk's record and the
 * set's counts in one transaction, conditional on the chunk being new and the set being exactly
 * as read (still receiving, the same chunks and items). The caller has checked, against `seen`,
 * that the counts still add up; the condition makes that check hold at the moment of the write.
 * The chunk that completes the set marks it complete in the same write.
 */
export async function reserveChunk(seen: ChunkSetRecord, record: ChunkRecord, at: string): Promise<ChunkReservation> {
  const TableName = config.tableName();
  const key = chunkSets().get({ accountId: seen.accountId, baseKey: seen.baseKey }).params<{ Key: Record<string, unknown> }>().Key;
  const completes = seen.received.length + 1 === seen.totalChunks;
  const put = chunks()
    .put({ ...record, completesSet: completes })
    .where(({ chunk }, { notExists }) => notExists(chunk))
    .params<TransactPut>();
  const update = {
    TableName,
    Key: key,
    UpdateExpression: `ADD #received :n, #receivedItems :items SET #updatedAt = :at${completes ? ', #status = :complete' : ''}`,
    ConditionExpression:
      '#status = :receiving AND #receivedItems = :seenItems AND ' +
      (seen.received.length ? 'size(#received) = :seenChunks' : 'attribute_not_exists(#received)'),
    ExpressionAttributeNames: { '#received': 'received', '#receivedItems': 'receivedItems', '#updatedAt': 'updatedAt', '#status': 'status' },
    ExpressionAttributeValues: {
      ':n': new Set([record.chunk]),
      ':items': record.items,
      ':at': at,
      ':receiving': 'receiving',
      ':seenItems': seen.receivedItems,
      ...(seen.received.length ? { ':seenChunks': seen.received.length } : {}),
      ...(completes ? { ':complete': 'complete' } : {}),
    },
  };
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: put }, { Update: update }] }));
  } catch (err) {
    const codes = cancellationCodes(err);
    if (!codes) throw err;
    if (codes[0] === 'ConditionalCheckFailed') {
      const held = await getChunk(record.accountId, record.baseKey, record.chunk);
      return held ? { outcome: 'held', chunk: held } : { outcome: 'changed' };
    }
    if (codes.every((c) => c === 'None' || c === 'ConditionalCheckFailed' || c === 'TransactionConflict')) return { outcome: 'changed' };
    throw err;
  }
  const received = [...seen.received, record.chunk].sort((a, b) => a - b);
  return { outcome: 'reserved', set: { ...seen, received, receivedItems: seen.receivedItems + record.items, status: completes ? 'complete' : 'receiving', updatedAt: at } };
}

/** Chunk `n`'s items are written; answers the set after the change (adding twice changes nothing). */
export async function markChunkWritten(accountId: number, baseKey: string, n: number, at: string): Promise<ChunkSetRecord> {
  // A patch: the set exists while its chunks are written, so the answer is the whole set.
  const res = await chunkSets().patch({ accountId, baseKey }).add({ written: [n] }).set({ updatedAt: at }).go({ response: 'all_new' });
  return asSet(res.data);
}

/** The set failed for good (the reason is shown by the status routes); a failed set stays failed. */
export async function failChunkSet(accountId: number, baseKey: string, failure: string, at: string): Promise<void> {
  await chunkSets()
    .update({ accountId, baseKey })
    .set({ status: 'failed', updatedAt: at, failure })
    .where(({ status }, { ne }) => ne(status, 'failed'))
    .go()
    .catch((err) => {
      if (!isConditionalFailure(err)) throw err;
    });
}
