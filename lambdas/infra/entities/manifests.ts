import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, defineEntity, isConditionalFailure, service, key, required, optional } from './entity';
import { documentClient } from '../dynamo';
import { config } from '../../shared/config';
import { batchWriteAll } from '../batch-write';
import type { BatchRecord, ChunkSetRecord, DecisionEntry, DecisionSegment, StoredItem } from '../../core/manifests/model';
import { batchStatuses, chunkSetStatuses, isVisible } from '../../core/manifests/model';

const keyless = { casing: 'none' } as const;

/**
 * A manifest batch (one import of a manifest), its items, its decision log and, in chunked
 * mode, the set of chunks it is assembled from. Items and decision pages live in the batch's
 * partition, so a batch reads as one Query and its items are addressed by (batch, item key).
 * Keys keep their case (`casing: 'none'`): item keys and AWBs come from partners.
 */

const batches = defineEntity({
  model: { entity: 'manifestBatch', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', accountId: 'number', manifestNumber: 'string', mawbNumber: 'string', courier: 'string' }),
    ...required({ status: batchStatuses }),
    ...optional({ header: 'any' }),
    progress: { type: 'number', default: 0 },
    itemCount: { type: 'number', default: 0 },
    awbCount: { type: 'number', default: 0 },
    lastRunId: { type: 'string' },
    /** The latest run that finished: its results (products in parts, and the download files) are the batch's full result. */
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ finishedRunId: 'string', closedAt: 'string', closedBy: 'string', summary: 'any', pipeline: 'any' }),
    ...optional({ reviewRevision: 'number', reviewAnnounced: 'number' }),
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

const items = defineEntity({
  model: { entity: 'manifestItem', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', accountId: 'number', itemKey: 'string', awb: 'string', hash: 'string' }),
    /** The run (submission) that last created or changed the item: the pipeline processes it. */
    ...required({ runId: 'string', decision: ['CREATE', 'UPDATE'], line: 'number', data: 'any', createdAt: 'string' }),
    ...required({ updatedAt: 'string' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'ITEM#${itemKey}', keyless) },
    byAwb: { index: 'gsi1', pk: key('gsi1pk', 'AWB#${awb}', keyless), sk: key('gsi1sk', '${accountId}#${batchId}#${itemKey}', keyless) },
  },
} as const);

const decisionPages = defineEntity({
  model: { entity: 'manifestDecisionPage', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', segmentId: 'string', page: 'number', pageKey: 'string', entries: 'any' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'DECISIONS#${segmentId}#${pageKey}', keyless) },
  },
} as const);

/**
 * One submission's (or one chunk's) decisions, as a record of its own beside the batch: the batch
 * record stays the same size however many updates it receives. Sorted by when the submission
 * was accepted, so the log reads oldest first.
 */
const segments = defineEntity({
  model: { entity: 'manifestDecisionSegment', version: '1', service },
  attributes: {
    ...required({ batchId: 'string', segmentId: 'string', runId: 'string', mode: ['create', 'update'], at: 'string' }),
    ...required({ count: 'number', counts: 'any' }),
    ...optional({ chunk: 'number' }),
  },
  indexes: {
    byBatch: { pk: key('pk', 'BATCH#${batchId}', keyless), sk: key('sk', 'SEGMENT#${at}#${segmentId}', keyless) },
  },
} as const);

const chunkSets = defineEntity({
  model: { entity: 'manifestChunkSet', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', baseKey: 'string', batchId: 'string', mode: ['create', 'update'], courier: 'string' }),
    ...required({ manifestNumber: 'string', mawbNumber: 'string', totalChunks: 'number', totalItems: 'number' }),
    received: { type: 'set', items: 'number' },
    receivedItems: { type: 'number', default: 0 },
    /** Chunks whose items are written: the batch is released when every chunk is. */
    written: { type: 'set', items: 'number' },
    ...required({ status: chunkSetStatuses, createdAt: 'string', updatedAt: 'string', expiresAt: 'string' }),
    ...optional({ failure: 'string', ttl: 'number' }),
  },
  indexes: {
    byKey: { pk: key('pk', 'CHUNKS#${accountId}#${baseKey}', keyless), sk: key('sk', 'CHUNKS', keyless) },
  },
} as const);

/* ---- batches ---- */

/** Creates the batch unless it exists (a retried submission derives the same id). */
export async function createBatch(b: BatchRecord): Promise<boolean> {
  try {
    await batches()
      .put(b)
      .where(({ batchId }, { notExists }) => notExists(batchId))
      .go();
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}

export async function getBatch(batchId: string): Promise<BatchRecord | undefined> {
  const res = await batches().get({ batchId }).go({ consistent: true });
  return (res.data as BatchRecord | null) ?? undefined;
}

/** The account's batches, newest first, created within [from, to] (ISO timestamps) when given. */
export async function listBatches(accountId: number, range: { from?: string; to?: string } = {}): Promise<BatchRecord[]> {
  const res = await batches().query.byAccount({ accountId }).go({ pages: 'all', order: 'desc' });
  return (res.data as BatchRecord[]).filter((b) => (!range.from || b.createdAt >= range.from) && (!range.to || b.createdAt <= range.to));
}

/** Every account's batches, newest first, a page at a time (the broker's queue; batches written before 2026-11-28 are not in it). */
export async function listAllBatches(opts: { cursor?: string | null; limit: number }): Promise<{ batches: BatchRecord[]; cursor: string | null }> {
  const res = await batches().query.everyAccount({}).go({ order: 'desc', limit: opts.limit, cursor: opts.cursor ?? null });
  return { batches: res.data as BatchRecord[], cursor: res.cursor };
}

/** The account's latest batch of the manifest whose items are all written (see `isVisible`). */
export async function latestBatchOf(accountId: number, manifestNumber: string): Promise<BatchRecord | undefined> {
  let cursor: string | null = null;
  do {
    const res: { data: unknown[]; cursor: string | null } = await batches().query.byManifest({ accountId, manifestNumber }).go({ order: 'desc', limit: 10, cursor });
    const found = (res.data as BatchRecord[]).find(isVisible);
    if (found) return found;
    cursor = res.cursor;
  } while (cursor);
  return undefined;
}

/**
 * Records one segment of decisions: the segment's record and the batch's counts in one
 * transaction, conditional on the segment being new and the batch open, so a repeated segment
 * (a retried or resumed write) counts once. Refused (423) if the batch was closed.
 */
export async function recordSegment(batchId: string, segment: DecisionSegment, changes: { created: number; awbs: number; at: string }): Promise<'recorded' | 'already' | 'closed'> {
  const put = segments()
    .put({ batchId, segmentId: segment.id, runId: segment.runId, mode: segment.mode, chunk: segment.chunk, at: segment.at, count: segment.count, counts: segment.counts })
    .where(({ segmentId }, { notExists }) => notExists(segmentId))
    .params() as Record<string, unknown>;
  const counts = batches()
    .update({ batchId })
    .add({ itemCount: changes.created, awbCount: changes.awbs })
    .set({ updatedAt: changes.at })
    .where(({ closedAt, batchId: id }, { notExists, exists }) => `${exists(id)} AND ${notExists(closedAt)}`)
    .params() as Record<string, unknown>;
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: put as never }, { Update: counts as never }] }));
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
  const res = await segments().query.byBatch({ batchId }).go({ pages: 'all' });
  return res.data.map((g) => ({ id: g.segmentId, runId: g.runId, mode: g.mode, ...(g.chunk ? { chunk: g.chunk } : {}), at: g.at, count: g.count, counts: g.counts as DecisionSegment['counts'] }));
}

/**
 * Hands run `runId` of the batch to processing (status pending), once: a batch already on that
 * run is left as it is. Refused when the batch is closed.
 */
export async function startRun(batchId: string, runId: string, at: string): Promise<'started' | 'already' | 'closed'> {
  try {
    await batches()
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
    const u = batches().update({ batchId });
    const res = closed
      ? await u
          .set({ closedAt: closed.at, closedBy: closed.by, updatedAt: closed.at })
          .where(({ batchId: id, closedAt }, { exists, notExists }) => `${exists(id)} AND ${notExists(closedAt)}`)
          .go({ response: 'all_new' })
      : await u.remove(['closedAt', 'closedBy']).where(({ batchId: id }, { exists }) => exists(id)).go({ response: 'all_new' });
    return res.data as BatchRecord;
  } catch (err) {
    if (isConditionalFailure(err)) return getBatch(batchId);
    throw err;
  }
}

/** The batch record's table key, for the pipeline's counter updates (lambdas/infra/entities/pipeline-state.ts). */
export function batchKey(batchId: string): Record<string, string> {
  return batches().get({ batchId }).params().Key as Record<string, string>;
}

/* ---- items ---- */

/** An item record's table key, for writes that touch only a field inside `data` (lambdas/infra/entities/manifest-items-taxid.ts). */
export function itemKeyOf(batchId: string, itemKey: string): Record<string, string> {
  return items().get({ batchId, itemKey }).params().Key as Record<string, string>;
}

/** The stored items of a batch under these keys (what update mode compares against). */
export async function getItems(batchId: string, keys: readonly string[]): Promise<Map<string, Pick<StoredItem, 'itemKey' | 'hash' | 'runId' | 'decision' | 'createdAt'>>> {
  const found = new Map<string, Pick<StoredItem, 'itemKey' | 'hash' | 'runId' | 'decision' | 'createdAt'>>();
  for (let i = 0; i < keys.length; i += 100) {
    const res = await items()
      .get(keys.slice(i, i + 100).map((itemKey) => ({ batchId, itemKey })))
      .go({ attributes: ['itemKey', 'hash', 'runId', 'decision', 'createdAt'], consistent: true, concurrency: 4 });
    for (const it of res.data) found.set(it.itemKey, it as StoredItem);
    if (res.unprocessed.length) {
      const again = await getItems(batchId, res.unprocessed.map((u) => u.itemKey as string));
      for (const [k, v] of again) found.set(k, v);
    }
  }
  return found;
}

/** The stored items of a batch under these keys, whole (the review shows what the partner declared). */
export async function getStoredItems(batchId: string, keys: readonly string[]): Promise<Map<string, StoredItem>> {
  const found = new Map<string, StoredItem>();
  for (let i = 0; i < keys.length; i += 100) {
    const res = await items()
      .get(keys.slice(i, i + 100).map((itemKey) => ({ batchId, itemKey })))
      .go({ concurrency: 4 });
    for (const it of res.data) found.set(it.itemKey, it as StoredItem);
    if (res.unprocessed.length) for (const [k, v] of await getStoredItems(batchId, res.unprocessed.map((u) => u.itemKey as string))) found.set(k, v);
  }
  return found;
}

/**
 * Writes items (and decision pages) in BatchWriteItem calls, retrying unprocessed writes. Each
 * call's request is built when a writer is free for it, so a 100,000-item payload never exists
 * twice in memory (once as items, once as marshalled requests).
 */
export async function putItems(records: readonly StoredItem[], pages: readonly { segmentId: string; page: number; entries: DecisionEntry[]; batchId: string }[]): Promise<void> {
  function* requests() {
    for (let i = 0; i < records.length; i += 25) yield* items().put(records.slice(i, i + 25) as StoredItem[]).params<{ RequestItems: never }[]>();
    for (let i = 0; i < pages.length; i += 25) {
      const slice = pages.slice(i, i + 25).map((p) => ({ ...p, pageKey: pageKey(p.page), entries: p.entries as unknown[] }));
      yield* decisionPages().put(slice).params<{ RequestItems: never }[]>();
    }
  }
  await batchWriteAll(requests());
}

/** Accounts other than `accountId` that hold an item with this AWB (update mode's cross-team check). */
export async function otherOwnersOfAwb(awb: string, accountId: number): Promise<boolean> {
  const res = await items().query.byAwb({ awb }).go({ attributes: ['accountId'], limit: 20 });
  return res.data.some((it) => it.accountId !== accountId);
}

/** The account's items with this AWB, across its batches (client-info corrections, quota). */
export async function itemsOfAwb(accountId: number, awb: string): Promise<StoredItem[]> {
  const res = await items().query.byAwb({ awb, accountId }).go({ pages: 'all' });
  return res.data as StoredItem[];
}

/**
 * Every item of a batch, in item-key order. Pages of at most 1,000 items (about what DynamoDB's
 * 1 MB page holds of them anyway): DynamoDB Local reads a page without a Limit about three times
 * slower (measured: 10,000 items in 3.0 s of its CPU against 1.1 s).
 */
export async function allItemsOf(batchId: string): Promise<StoredItem[]> {
  const res = await items().query.byBatch({ batchId }).go({ pages: 'all', limit: 1000 });
  return res.data as StoredItem[];
}

export async function listItems(batchId: string, opts: { cursor?: string | null; limit?: number } = {}) {
  const res = await items().query.byBatch({ batchId }).go({ cursor: opts.cursor ?? null, limit: opts.limit });
  return { items: res.data as StoredItem[], cursor: res.cursor };
}

/* ---- decision pages ---- */

const pageKey = (page: number) => String(page).padStart(6, '0');

export async function getDecisionPages(batchId: string, refs: readonly { segmentId: string; page: number }[]): Promise<Map<string, DecisionEntry[]>> {
  const out = new Map<string, DecisionEntry[]>();
  if (!refs.length) return out;
  const res = await decisionPages()
    .get(refs.map((r) => ({ batchId, segmentId: r.segmentId, pageKey: pageKey(r.page) })))
    .go({ consistent: true });
  for (const p of res.data) out.set(`${p.segmentId}#${p.page}`, p.entries as DecisionEntry[]);
  return out;
}

/* ---- chunk sets ---- */

/**
 * One accepted chunk of a chunked upload, in the set's partition: which content it was accepted
 * with (its hash, and the nonce of the request that accepted it) and where that content is stored.
 */
const chunks = defineEntity({
  model: { entity: 'manifestChunk', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', baseKey: 'string', chunk: 'number', requestHash: 'string', nonce: 'string' }),
    ...required({ payloadKey: 'string', items: 'number', receivedAt: 'string' }),
    /** This chunk's arrival completed the set (its answer is the completing answer). */
    ...optional({ completesSet: 'boolean', ttl: 'number' }),
  },
  indexes: {
    byChunk: { pk: key('pk', 'CHUNKS#${accountId}#${baseKey}', keyless), sk: key('sk', 'CHUNK#${chunk}', keyless) },
  },
} as const);

export interface ChunkRecord {
  accountId: number;
  baseKey: string;
  chunk: number;
  requestHash: string;
  nonce: string;
  payloadKey: string;
  items: number;
  receivedAt: string;
  completesSet?: boolean;
  ttl?: number;
}

const asSet = (raw: Record<string, unknown>): ChunkSetRecord => ({
  ...(raw as unknown as ChunkSetRecord),
  received: [...((raw.received as number[] | undefined) ?? [])].sort((a, b) => a - b),
  written: [...((raw.written as number[] | undefined) ?? [])].sort((a, b) => a - b),
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
  return res.data ? asSet(res.data as Record<string, unknown>) : undefined;
}

export async function getChunk(accountId: number, baseKey: string, chunk: number): Promise<ChunkRecord | undefined> {
  const res = await chunks().get({ accountId, baseKey, chunk }).go({ consistent: true });
  return (res.data as ChunkRecord | null) ?? undefined;
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
  const key = chunkSets().get({ accountId: seen.accountId, baseKey: seen.baseKey }).params().Key as Record<string, unknown>;
  const completes = seen.received.length + 1 === seen.totalChunks;
  const put = chunks()
    .put({ ...record, completesSet: completes })
    .where(({ chunk }, { notExists }) => notExists(chunk))
    .params() as Record<string, unknown>;
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
    await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: put as never }, { Update: update }] }));
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
  const res = await chunkSets().update({ accountId, baseKey }).add({ written: [n] }).set({ updatedAt: at }).go({ response: 'all_new' });
  return asSet(res.data as Record<string, unknown>);
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
