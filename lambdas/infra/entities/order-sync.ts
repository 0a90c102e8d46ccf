import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalFailure, pad, type TransactDelete, type TransactPut } from './entity';
import { documentClient } from '../dynamo';
import { marketplaceConnections, type MarketplaceConnectionItem } from './order-sync/marketplace-connection';
import { syncLocks } from './order-sync/sync-lock';
import { syncRuns, type SyncRunItem } from './order-sync/sync-run';
import type { SyncChannel } from '#core/orders/marketplace';

/**
 * The marketplace sync's records (services/orders/sync.ts): each account's connection rows (one
 * partition lists every connected account for the schedule), the account's sync lock, and its
 * sync runs (newest last in the partition). Rows written by hand before these entities (same keys
 * and fields, no ElectroDB markers) are read with `ignoreOwnership`; writes add the markers.
 */
const read = { ignoreOwnership: true } as const;

/* ---- connections ---- */

/** A connection of an account to a marketplace, under the code it was written with. */
export type ConnectionRow = MarketplaceConnectionItem;

const connectionKey = (accountId: number, channel: ConnectionRow['channel']) => ({ accountKey: pad(accountId), channel });

export async function putConnection(row: ConnectionRow): Promise<void> {
  await marketplaceConnections().put({ ...row, accountKey: pad(row.accountId) }).go();
}

export async function deleteConnection(accountId: number, channel: ConnectionRow['channel']): Promise<void> {
  await marketplaceConnections().delete(connectionKey(accountId, channel)).go();
}

/** The account's connection rows, under whatever code each was written. */
export async function connectionRows(accountId: number): Promise<ConnectionRow[]> {
  return (await marketplaceConnections().query.all({ accountKey: pad(accountId) }).go({ pages: 'all', consistent: true, ...read })).data;
}

/** Every account with at least one connection. */
export async function connectedAccountIds(): Promise<number[]> {
  const res = await marketplaceConnections().query.all({}).go({ pages: 'all', ...read });
  return [...new Set(res.data.map((r) => r.accountId))];
}

/**
 * Moves a connection row from a former code to the current one, conditional on the former row
 * being as read (`updatedAt`): with `keepCurrent` (a row under the current code exists, newer) the
 * former row is only deleted; else, in one transaction, the current row is put (unless one
 * appeared meanwhile) and the former deleted. Answers 'moved', or 'changed' when a condition
 * failed (a connect or disconnect raced it and stands), or 'busy' (a transaction conflict: try again).
 */
export async function moveConnection(row: ConnectionRow, channel: SyncChannel, keepCurrent: boolean): Promise<'moved' | 'changed' | 'busy'> {
  const former = marketplaceConnections()
    .delete(connectionKey(row.accountId, row.channel))
    .where(({ updatedAt }, { eq }) => eq(updatedAt, row.updatedAt));
  try {
    if (keepCurrent) await former.go();
    else {
      const put = marketplaceConnections()
        .put({ ...row, channel, accountKey: pad(row.accountId) })
        .where(({ accountKey }, { notExists }) => notExists(accountKey))
        .params<TransactPut>();
      await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: put }, { Delete: former.params<TransactDelete>() }] }));
    }
    return 'moved';
  } catch (err) {
    const reasons = (err as { name?: string; CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (isConditionalFailure(err)) return 'changed';
    if ((err as { name?: string }).name !== 'TransactionCanceledException' || !reasons) throw err;
    return reasons.some((r) => r.Code === 'ConditionalCheckFailed') ? 'changed' : 'busy';
  }
}

/* ---- the account's lock ---- */

/** Takes the account's sync lock for `syncId` until `expiresAt`, unless another sync holds it unexpired: answers that sync's id. */
export async function takeSyncLock(accountId: number, syncId: string, expiresAt: number, nowSeconds: number): Promise<{ taken: true } | { taken: false; heldBy: string | null }> {
  try {
    await syncLocks()
      .put({ accountId, syncId, expiresAt })
      .where((a, { notExists, lt }) => `${notExists(a.syncId)} OR ${lt(a.expiresAt, nowSeconds)}`)
      .go();
    return { taken: true };
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    const held = await syncLocks().get({ accountId }).go({ consistent: true, ...read });
    return { taken: false, heldBy: held.data?.syncId ?? null };
  }
}

/** Gives the lock back if `syncId` still holds it. */
export async function releaseSyncLock(accountId: number, syncId: string): Promise<void> {
  try {
    await syncLocks()
      .delete({ accountId })
      .where((a, { eq }) => eq(a.syncId, syncId))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/* ---- sync runs ---- */

/** A sync run as the service reads it: `since` and `completedAt` null when not set, `results` empty before any. */
export type SyncRunRow = Omit<SyncRunItem, 'since' | 'completedAt' | 'results'> & { since: string | null; completedAt: string | null; results: Record<string, unknown> };

const runKey = (r: { accountId: number; startedAt: string; syncId: string }) => ({ accountId: r.accountId, startedAt: r.startedAt, syncId: r.syncId });
const asRow = (d: SyncRunItem): SyncRunRow => ({ ...d, since: d.since ?? null, completedAt: d.completedAt ?? null, results: d.results ?? {} });

export async function putSyncRun(run: SyncRunRow): Promise<void> {
  await syncRuns().put(run).go();
}

export async function getSyncRun(key: { accountId: number; startedAt: string; syncId: string }): Promise<SyncRunRow | undefined> {
  const res = await syncRuns().get(runKey(key)).go({ consistent: true, ...read });
  return res.data ? asRow(res.data) : undefined;
}

/** Writes one channel's result while the run is processing (a finished run does not change). */
export async function saveSyncResult(key: { accountId: number; startedAt: string; syncId: string }, channel: string, result: unknown): Promise<void> {
  await syncRuns()
    .update(runKey(key))
    .data(({ results }, { set }) => set(results[channel], result))
    .where((a, { eq }) => eq(a.status, 'processing'))
    .go();
}

/** Ends a processing run with its status. */
export async function finishSyncRun(key: { accountId: number; startedAt: string; syncId: string }, status: string, completedAt: string): Promise<void> {
  await syncRuns()
    .update(runKey(key))
    .set({ status, completedAt })
    .where((a, { eq }) => eq(a.status, 'processing'))
    .go();
}

/** The account's latest runs, newest first. */
export async function recentSyncRuns(accountId: number, limit: number): Promise<SyncRunRow[]> {
  const res = await syncRuns().query.byAccount({ accountId }).go({ order: 'desc', limit, consistent: true, ...read });
  return res.data.map(asRow);
}

/** Every run of the account, page by page (the channel-code migration walks them). */
export async function* allSyncRuns(accountId: number): AsyncGenerator<SyncRunRow[]> {
  let cursor: string | null = null;
  do {
    const res: { data: SyncRunItem[]; cursor: string | null } = await syncRuns().query.byAccount({ accountId }).go({ cursor, consistent: true, ...read });
    yield res.data.map(asRow);
    cursor = res.cursor;
  } while (cursor);
}

/** Rewrites a finished run's channel codes, if its status is still the one read; answers whether it did. */
export async function rewriteSyncRunCodes(before: SyncRunRow, channels: string[], results: Record<string, unknown>): Promise<boolean> {
  try {
    await syncRuns()
      .update(runKey(before))
      .set({ channels, results })
      .where((a, { eq }) => eq(a.status, before.status))
      .go();
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}
