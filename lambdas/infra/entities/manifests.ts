import { defineEntity, isConditionalFailure, service } from './entity';
import { batchWriteAll } from '../batch-write';
import type { BatchRecord, ChunkSetRecord, DecisionEntry, DecisionSegment, StoredItem } from '../../core/manifests/model';
import { batchStatuses, chunkSetStatuses } from '../../core/manifests/model';

/**
 * A manifest batch (one import of a manifest), its items, its decision log and, in chunked
 * mode, the set of chunks it is assembled from. Items and decision pages live in the batch's
 * partition, so a batch reads as one Query and its items are addressed by (batch, item key).
 * Keys keep their case (`casing: 'none'`): item keys and AWBs come from partners.
 */

const batches = defineEntity({
  model: { entity: 'manifestBatch', version: '1', service },
  attributes: {
    batchId: { type: 'string', required: true },
    accountId: { type: 'number', required: true },
    manifestNumber: { type: 'string', required: true },
    mawbNumber: { type: 'string', required: true },
    courier: { type: 'string', required: true },
    header: { type: 'any' },
    status: { type: batchStatuses, required: true },
    progress: { type: 'number', default: 0 },
    itemCount: { type: 'number', default: 0 },
    awbCount: { type: 'number', default: 0 },
    lastRunId: { type: 'string' },
    /** The latest run that finished: its products file is the batch's full result. */
    finishedRunId: { type: 'string' },
    segments: { type: 'any' },
    segmentIds: { type: 'set', items: 'string' },
    closedAt: { type: 'string' },
    closedBy: { type: 'string' },
    summary: { type: 'any' },
    pipeline: { type: 'any' },
    createdAt: { type: 'string', required: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byId: {
      pk: { field: 'pk', composite: ['batchId'], template: 'BATCH#${batchId}', casing: 'none' },
      sk: { field: 'sk', composite: [], template: 'BATCH', casing: 'none' },
    },
    byAccount: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['accountId'], template: 'ACCOUNT#${accountId}#BATCHES', casing: 'none' },
      sk: { field: 'gsi1sk', composite: ['createdAt', 'batchId'], template: '${createdAt}#${batchId}', casing: 'none' },
    },
    byManifest: {
      index: 'gsi2',
      pk: { field: 'gsi2pk', composite: ['accountId', 'manifestNumber'], template: 'ACCOUNT#${accountId}#MANIFEST#${manifestNumber}', casing: 'none' },
      sk: { field: 'gsi2sk', composite: ['createdAt', 'batchId'], template: '${createdAt}#${batchId}', casing: 'none' },
    },
  },
} as const);

const items = defineEntity({
  model: { entity: 'manifestItem', version: '1', service },
  attributes: {
    batchId: { type: 'string', required: true },
    accountId: { type: 'number', required: true },
    itemKey: { type: 'string', required: true },
    awb: { type: 'string', required: true },
    hash: { type: 'string', required: true },
    /** The run (submission) that last created or changed the item: the pipeline processes it. */
    runId: { type: 'string', required: true },
    decision: { type: ['CREATE', 'UPDATE'] as const, required: true },
    line: { type: 'number', required: true },
    data: { type: 'any', required: true },
    createdAt: { type: 'string', required: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byBatch: {
      pk: { field: 'pk', composite: ['batchId'], template: 'BATCH#${batchId}', casing: 'none' },
      sk: { field: 'sk', composite: ['itemKey'], template: 'ITEM#${itemKey}', casing: 'none' },
    },
    byAwb: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['awb'], template: 'AWB#${awb}', casing: 'none' },
      sk: { field: 'gsi1sk', composite: ['accountId', 'batchId', 'itemKey'], template: '${accountId}#${batchId}#${itemKey}', casing: 'none' },
    },
  },
} as const);

const decisionPages = defineEntity({
  model: { entity: 'manifestDecisionPage', version: '1', service },
  attributes: {
    batchId: { type: 'string', required: true },
    segmentId: { type: 'string', required: true },
    page: { type: 'number', required: true },
    pageKey: { type: 'string', required: true },
    entries: { type: 'any', required: true },
  },
  indexes: {
    byBatch: {
      pk: { field: 'pk', composite: ['batchId'], template: 'BATCH#${batchId}', casing: 'none' },
      sk: { field: 'sk', composite: ['segmentId', 'pageKey'], template: 'DECISIONS#${segmentId}#${pageKey}', casing: 'none' },
    },
  },
} as const);

const chunkSets = defineEntity({
  model: { entity: 'manifestChunkSet', version: '1', service },
  attributes: {
    accountId: { type: 'number', required: true },
    baseKey: { type: 'string', required: true },
    batchId: { type: 'string', required: true },
    mode: { type: ['create', 'update'] as const, required: true },
    courier: { type: 'string', required: true },
    manifestNumber: { type: 'string', required: true },
    mawbNumber: { type: 'string', required: true },
    totalChunks: { type: 'number', required: true },
    totalItems: { type: 'number', required: true },
    received: { type: 'set', items: 'number' },
    receivedItems: { type: 'number', default: 0 },
    status: { type: chunkSetStatuses, required: true },
    failure: { type: 'string' },
    createdAt: { type: 'string', required: true },
    updatedAt: { type: 'string', required: true },
    expiresAt: { type: 'string', required: true },
    ttl: { type: 'number' },
  },
  indexes: {
    byKey: {
      pk: { field: 'pk', composite: ['accountId', 'baseKey'], template: 'CHUNKS#${accountId}#${baseKey}', casing: 'none' },
      sk: { field: 'sk', composite: [], template: 'CHUNKS', casing: 'none' },
    },
  },
} as const);

/* ---- batches ---- */

/** Creates the batch unless it exists (a retried submission derives the same id). */
export async function createBatch(b: BatchRecord): Promise<boolean> {
  try {
    await batches()
      .put({ ...b, segments: b.segments as unknown[], segmentIds: undefined })
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

export async function latestBatchOf(accountId: number, manifestNumber: string): Promise<BatchRecord | undefined> {
  const res = await batches().query.byManifest({ accountId, manifestNumber }).go({ order: 'desc', limit: 1 });
  return (res.data[0] as BatchRecord | undefined) ?? undefined;
}

/**
 * Records one segment of decisions on the batch and, when the segment sent items to processing,
 * moves the batch to pending for run `runId`. The segment id is added to a set under a
 * condition, so a retried segment is recorded once. Refused (423) if the batch was closed.
 */
export async function recordSegment(
  batchId: string,
  segment: DecisionSegment,
  changes: { created: number; dispatch: boolean; awbs: number; at: string; runId: string },
): Promise<'recorded' | 'already' | 'closed'> {
  try {
    let u = batches()
      .update({ batchId })
      .append({ segments: [segment] })
      .add({ segmentIds: [segment.id], itemCount: changes.created, awbCount: changes.awbs })
      .set({ updatedAt: changes.at });
    if (changes.dispatch) u = u.set({ status: 'pending', progress: 0, lastRunId: changes.runId });
    await u
      .where(({ segmentIds, closedAt, batchId: id }, { notContains, notExists, exists }) => `${exists(id)} AND ${notContains(segmentIds, segment.id)} AND ${notExists(closedAt)}`)
      .go();
    return 'recorded';
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    const b = await getBatch(batchId);
    if (b?.closedAt) return 'closed';
    return 'already';
  }
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

/** Starts the chunk set unless another chunk already did; answers the set as stored. */
export async function openChunkSet(set: ChunkSetRecord): Promise<ChunkSetRecord> {
  try {
    await chunkSets()
      .put({ ...set, received: undefined })
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
  if (!res.data) return undefined;
  return { ...(res.data as ChunkSetRecord), received: [...((res.data.received as number[] | undefined) ?? [])].sort((a, b) => a - b) };
}

/**
 * Marks chunk `n` received (with its item count) unless it already was. Answers the set after
 * the change, or undefined when the chunk was already there or the set no longer receives.
 * Updates of one item are serialized, so exactly one call sees the set become complete.
 */
export async function markChunkReceived(accountId: number, baseKey: string, n: number, itemCount: number, at: string): Promise<ChunkSetRecord | undefined> {
  try {
    const res = await chunkSets()
      .update({ accountId, baseKey })
      .add({ received: [n], receivedItems: itemCount })
      .set({ updatedAt: at })
      .where(({ received, status }, { notContains, eq }) => `${notContains(received, n)} AND ${eq(status, 'receiving')}`)
      .go({ response: 'all_new' });
    return { ...(res.data as ChunkSetRecord), received: [...((res.data.received as number[] | undefined) ?? [])].sort((a, b) => a - b) };
  } catch (err) {
    if (isConditionalFailure(err)) return undefined;
    throw err;
  }
}

export async function finishChunkSet(accountId: number, baseKey: string, outcome: { status: 'complete' | 'failed'; failure?: string; at: string }): Promise<void> {
  await chunkSets()
    .update({ accountId, baseKey })
    .set({ status: outcome.status, updatedAt: outcome.at, ...(outcome.failure ? { failure: outcome.failure } : {}) })
    .where(({ status }, { eq }) => eq(status, 'receiving'))
    .go()
    .catch((err) => {
      if (!isConditionalFailure(err)) throw err;
    });
}
