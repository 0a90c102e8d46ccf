import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { defineEntity, isConditionalFailure, pad, service, key, required, optional } from './entity';
import { documentClient } from '../dynamo';
import { formerChannels, syncChannels } from '../../core/orders/marketplace';

/**
 * The marketplace sync's records (services/orders/sync.ts): each account's connection rows (one
 * partition lists every connected account for the schedule), the account's sync lock, and its
 * sync runs (newest last in the partition). Rows written by hand before these entities (same keys
 * and fields, no ElectroDB markers) are read with `ignoreOwnership`; writes add the markers.
 */

const keyless = { casing: 'none' } as const;
const read = { ignoreOwnership: true } as const;

/** Every channel code a stored record may name: the current ones and the former ones (a rename). */
const channelCodes = [...syncChannels, ...formerChannels];

const connections = defineEntity({
  model: { entity: 'marketplaceConnection', version: '1', service },
  attributes: {
    accountId: { type: 'number', required: true },
    /** The account id zero-padded, so the schedule's partition lists accounts in order. */
    accountKey: { type: 'string', hidden: true, watch: ['accountId'], set: (_: unknown, { accountId }: { accountId: number }) => pad(accountId) },
    ...required({ channel: 'string', baseUrl: 'string', updatedAt: 'string' }),
  },
  indexes: {
    all: { pk: key('pk', 'MARKETPLACE_CONNECTIONS', keyless), sk: key('sk', '${accountKey}#${channel}', keyless) },
  },
} as const);

const locks = defineEntity({
  model: { entity: 'syncLock', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', syncId: 'string' }),
    /** Epoch seconds after which another sync may take the lock (a crashed worker's run). */
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byAccount: { pk: key('pk', 'SYNC#${accountId}', keyless), sk: key('sk', 'LOCK', keyless) },
  },
} as const);

const runs = defineEntity({
  model: { entity: 'syncRun', version: '1', service },
  attributes: {
    ...required({ accountId: 'number', syncId: 'string', startedAt: 'string', trigger: 'string', status: 'string' }),
    channels: { type: 'list', items: { type: 'string' }, required: true },
    /** An ISO time, or null: nullable fields are `any` (ElectroDB's string refuses null). */
    ...optional({ since: 'any', completedAt: 'any' }),
    /** One result per channel code, each written on its own (`saveSyncResult`). */
    results: { type: 'map', properties: Object.fromEntries(channelCodes.map((c) => [c, { type: 'any' } as const])) as Record<string, { type: 'any' }> },
  },
  indexes: {
    byAccount: { pk: key('pk', 'SYNC#${accountId}', keyless), sk: key('sk', 'RUN#${startedAt}#${syncId}', keyless) },
  },
} as const);

/* ---- connections ---- */

export interface ConnectionRow {
  accountId: number;
  channel: string;
  baseUrl: string;
  updatedAt: string;
}

const connectionKey = (accountId: number, channel: string) => ({ accountKey: pad(accountId), channel });

export async function putConnection(row: ConnectionRow): Promise<void> {
  await connections().put({ ...row, accountKey: pad(row.accountId) }).go();
}

export async function deleteConnection(accountId: number, channel: string): Promise<void> {
  await connections().delete(connectionKey(accountId, channel)).go();
}

/** The account's connection rows, under whatever code each was written. */
export async function connectionRows(accountId: number): Promise<ConnectionRow[]> {
  return (await connections().query.all({ accountKey: pad(accountId) }).go({ pages: 'all', consistent: true, ...read })).data;
}

/** Every account with at least one connection. */
export async function connectedAccountIds(): Promise<number[]> {
  const res = await connections().query.all({}).go({ pages: 'all', ...read });
  return [...new Set(res.data.map((r) => r.accountId))];
}

/**
 * Moves a connection row from a former code to the current one, conditional on the former row
 * being as read (`updatedAt`): with `keepCurrent` (a row under the current code exists, newer) the
 * former row is only deleted; else, in one transaction, the current row is put (unless one
 * appeared meanwhile) and the former deleted. Answers 'moved', or 'changed' when a condition
 * failed (a connect or disconnect raced it and stands), or 'busy' (a transaction conflict: try again).
 */
export async function moveConnection(row: ConnectionRow, channel: string, keepCurrent: boolean): Promise<'moved' | 'changed' | 'busy'> {
  const former = connections()
    .delete(connectionKey(row.accountId, row.channel))
    .where(({ updatedAt }, { eq }) => eq(updatedAt, row.updatedAt));
  try {
    if (keepCurrent) await former.go();
    else {
      const put = connections()
        .put({ ...row, channel, accountKey: pad(row.accountId) })
        .where(({ accountKey }, { notExists }) => notExists(accountKey))
        .params();
      await documentClient().send(new TransactWriteCommand({ TransactItems: [{ Put: put as never }, { Delete: former.params() as never }] }));
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
    await locks()
      .put({ accountId, syncId, expiresAt })
      .where((a, { notExists, lt }) => `${notExists(a.syncId)} OR ${lt(a.expiresAt, nowSeconds)}`)
      .go();
    return { taken: true };
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    const held = await locks().get({ accountId }).go({ consistent: true, ...read });
    return { taken: false, heldBy: held.data?.syncId ?? null };
  }
}

/** Gives the lock back if `syncId` still holds it. */
export async function releaseSyncLock(accountId: number, syncId: string): Promise<void> {
  try {
    await locks()
      .delete({ accountId })
      .where((a, { eq }) => eq(a.syncId, syncId))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/* ---- sync runs ---- */

export interface SyncRunRow {
  syncId: string;
  accountId: number;
  trigger: string;
  status: string;
  channels: string[];
  since: string | null;
  startedAt: string;
  completedAt: string | null;
  results: Record<string, unknown>;
}

const runKey = (r: { accountId: number; startedAt: string; syncId: string }) => ({ accountId: r.accountId, startedAt: r.startedAt, syncId: r.syncId });
const asRow = (d: Record<string, unknown>): SyncRunRow =>
  ({ ...d, since: (d.since as string | null | undefined) ?? null, completedAt: (d.completedAt as string | null | undefined) ?? null, results: (d.results as Record<string, unknown>) ?? {} }) as SyncRunRow;

export async function putSyncRun(run: SyncRunRow): Promise<void> {
  await runs().put(run as never).go();
}

export async function getSyncRun(key: { accountId: number; startedAt: string; syncId: string }): Promise<SyncRunRow | undefined> {
  const res = await runs().get(runKey(key)).go({ consistent: true, ...read });
  return res.data ? asRow(res.data) : undefined;
}

/** Writes one channel's result while the run is processing (a finished run does not change). */
export async function saveSyncResult(key: { accountId: number; startedAt: string; syncId: string }, channel: string, result: unknown): Promise<void> {
  await runs()
    .update(runKey(key))
    .data(({ results }, { set }) => set(results[channel], result))
    .where((a, { eq }) => eq(a.status, 'processing'))
    .go();
}

/** Ends a processing run with its status. */
export async function finishSyncRun(key: { accountId: number; startedAt: string; syncId: string }, status: string, completedAt: string): Promise<void> {
  await runs()
    .update(runKey(key))
    .set({ status, completedAt })
    .where((a, { eq }) => eq(a.status, 'processing'))
    .go();
}

/** The account's latest runs, newest first. */
export async function recentSyncRuns(accountId: number, limit: number): Promise<SyncRunRow[]> {
  const res = await runs().query.byAccount({ accountId }).go({ order: 'desc', limit, consistent: true, ...read });
  return res.data.map(asRow);
}

/** Every run of the account, page by page (the channel-code migration walks them). */
export async function* allSyncRuns(accountId: number): AsyncGenerator<SyncRunRow[]> {
  let cursor: string | null = null;
  do {
    const res: { data: Record<string, unknown>[]; cursor: string | null } = await runs().query.byAccount({ accountId }).go({ cursor, consistent: true, ...read });
    yield res.data.map(asRow);
    cursor = res.cursor;
  } while (cursor);
}

/** Rewrites a finished run's channel codes, if its status is still the one read; answers whether it did. */
export async function rewriteSyncRunCodes(before: SyncRunRow, channels: string[], results: Record<string, unknown>): Promise<boolean> {
  try {
    await runs()
      .update(runKey(before))
      .set({ channels, results } as never)
      .where((a, { eq }) => eq(a.status, before.status))
      .go();
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}
