/**
 * Marketplace order sync (spec 4.1 sync, sync status; 2.3). A sync is a record per account and
 * run; starting one claims the account's sync lock with a conditional write (one sync at a time;
 * a second request while one runs answers 409 naming it) and queues the run. The worker reads
 * each channel through its connector, upserts every order by (channel, channel order id) and
 * records the channel's counters; a channel that fails does not stop the others.
 *
 * Connection rows and sync records written before a channel's rename (`mercadolibre`, now `meli`)
 * read as the current code; connecting or disconnecting a channel also removes its former row.
 * `migrateFormerConnections` and `migrateFormerSyncs` rewrite them (`migrate channel-codes`).
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '#core/auth/principal';
import { Conflict, ValidationFailed } from '#core/errors';
import { canonicalChannel, credentialProblems, formerCodesOf, isFormerChannel, syncChannels, type MarketplaceConnection, type SyncChannel } from '#core/orders/marketplace';
import { nextSyncAfter, syncEveryMinutes } from '#core/orders/sync-schedule';
import { config } from '#shared/config';
import { now, nowIso } from '#infra/clock';
import { queues } from '#infra/queues';
import {
  allSyncRuns,
  connectedAccountIds,
  connectionRows,
  deleteConnection,
  finishSyncRun,
  getSyncRun,
  moveConnection,
  putConnection,
  putSyncRun,
  recentSyncRuns,
  releaseSyncLock,
  rewriteSyncRunCodes,
  saveSyncResult,
  takeSyncLock,
} from '#infra/entities/order-sync';
import { checkBaseUrl, connectorFor, defaultBaseUrl } from '#infra/marketplaces/index';
import { marketplaceCredentials } from '#infra/marketplace-credentials';
import { logger } from '#shared/logger';
import { importOrder } from './orders';
import { recordMetric } from '#shared/metrics';

export type SyncStatus = 'processing' | 'completed' | 'completed_with_errors' | 'failed';

export interface ChannelResult {
  status: 'pending' | 'processing' | 'completed' | 'failed';
  orders_synced: number;
  orders_new: number;
  orders_updated: number;
  orders_rejected: number;
  rejected: { channel_order_id: string | null; reason: string }[];
  error: string | null;
}

export interface SyncRecord {
  syncId: string;
  accountId: number;
  trigger: 'manual' | 'scheduled';
  status: SyncStatus;
  channels: SyncChannel[];
  since: string | null;
  startedAt: string;
  completedAt: string | null;
  results: Partial<Record<SyncChannel, ChannelResult>>;
}

export interface SyncMessage {
  kind: 'run';
  accountId: number;
  syncId: string;
  startedAt: string;
}

/** How long a run may hold the account's lock before another may start (a crashed worker's run). */
const lockSeconds = 15 * 60;
/** Rejected records kept per channel on the sync record (the count is exact). */
const keptRejections = 20;


const emptyResult = (): ChannelResult => ({ status: 'pending', orders_synced: 0, orders_new: 0, orders_updated: 0, orders_rejected: 0, rejected: [], error: null });

// ---------------------------------------------------------------------------------------------
// Connections

/** Stores an account's credentials for a marketplace (encrypted) and lists the account for the schedule. */
/**
 * The API address a connection's credentials will go to: `given`, else the marketplace's own for
 * these credentials; checked to be one of the marketplace's API hosts, except on the twin (stage local).
 * Undefined when nothing was given and the marketplace has no fixed address.
 */
export function connectionBaseUrl(channel: SyncChannel, given: string | undefined, credentials: Record<string, string>): { baseUrl: string } | { problem: string } | undefined {
  const url = given ?? defaultBaseUrl(channel, credentials);
  if (!url) return undefined;
  return checkBaseUrl(channel, url, { anyHost: config.stage() === 'local' });
}

/** 422 on `credentials` unless they are the fields the channel's connector reads (`credentialProblems`). */
export function requireUsableCredentials(channel: SyncChannel, credentials: Record<string, string>): void {
  const problems = credentialProblems(connectorFor(channel), credentials);
  if (problems.length) throw new ValidationFailed({ credentials: problems });
}

export async function connectMarketplace(principal: Principal, connection: MarketplaceConnection): Promise<void> {
  await marketplaceCredentials().put(principal.accountId, connection);
  await putConnection({ accountId: principal.accountId, channel: connection.channel, baseUrl: connection.baseUrl, updatedAt: nowIso() });
  // The connection made under a former code of the channel is this one now.
  for (const former of formerCodesOf(connection.channel)) await deleteConnection(principal.accountId, former);
}

export async function disconnectMarketplace(principal: Principal, channel: SyncChannel): Promise<void> {
  for (const code of [channel, ...formerCodesOf(channel)]) await deleteConnection(principal.accountId, code);
  await marketplaceCredentials().remove(principal.accountId, channel);
}

/** The account's connections, one per channel, under current codes (a row under the current code wins over a former one). */
export async function connectedChannels(accountId: number): Promise<{ channel: SyncChannel; baseUrl: string; updatedAt: string }[]> {
  const rows = await connectionRows(accountId);
  const by = new Map<SyncChannel, { channel: SyncChannel; baseUrl: string; updatedAt: string; former: boolean }>();
  for (const i of rows) {
    const channel = canonicalChannel(i.channel as string) as SyncChannel;
    const held = by.get(channel);
    const former = channel !== i.channel;
    if (!held || (held.former && !former)) by.set(channel, { channel, baseUrl: i.baseUrl as string, updatedAt: i.updatedAt as string, former });
  }
  return [...by.values()].sort((a, b) => a.channel.localeCompare(b.channel)).map(({ former: _f, ...c }) => c);
}

// ---------------------------------------------------------------------------------------------
// Start, run, status

export async function startSync(principal: Principal, input: { channels?: SyncChannel[]; since?: string }, trigger: SyncRecord['trigger'] = 'manual'): Promise<SyncRecord> {
  const connected = new Set((await connectedChannels(principal.accountId)).map((c) => c.channel));
  const channels = input.channels?.length ? [...new Set(input.channels)] : syncChannels.filter((c) => connected.has(c));
  const missing = channels.filter((c) => !connected.has(c));
  if (missing.length) throw new ValidationFailed({ channels: [`Not connected: ${missing.join(', ')}. Connect with PUT /v1/orders/marketplaces/{channel}.`] });
  if (!channels.length) throw new ValidationFailed({ channels: ['No marketplace is connected; connect one with PUT /v1/orders/marketplaces/{channel}.'] });

  const at = now();
  const record: SyncRecord = {
    syncId: `sync_${randomUUID()}`,
    accountId: principal.accountId,
    trigger,
    status: 'processing',
    channels,
    since: input.since ?? null,
    startedAt: at.toISOString(),
    completedAt: null,
    results: Object.fromEntries(channels.map((c) => [c, emptyResult()])),
  };
  const lock = await takeSyncLock(principal.accountId, record.syncId, Math.floor(at.getTime() / 1000) + lockSeconds, Math.floor(at.getTime() / 1000));
  if (!lock.taken) throw new Conflict(`A sync is already running (${lock.heldBy ?? 'unknown'}); wait for it to finish.`, { sync_id: lock.heldBy });
  try {
    await putSyncRun(record);
    const message: SyncMessage = { kind: 'run', accountId: record.accountId, syncId: record.syncId, startedAt: record.startedAt };
    await queues().send('marketplaceSync', message);
  } catch (err) {
    await releaseLock(record.accountId, record.syncId);
    throw err;
  }
  return record;
}

const releaseLock = releaseSyncLock;

async function readSync(accountId: number, startedAt: string, syncId: string): Promise<SyncRecord | undefined> {
  const row = await getSyncRun({ accountId, startedAt, syncId });
  return row ? currentCodes(row as SyncRecord) : undefined;
}

/** A sync record as the current codes say it (one written before a rename names former codes). */
function currentCodes(s: SyncRecord): SyncRecord {
  if (!s.channels.some((c) => canonicalChannel(c) !== c) && !Object.keys(s.results ?? {}).some((c) => canonicalChannel(c) !== c)) return s;
  const results: SyncRecord['results'] = {};
  // A former code's result first, so a current one written since (a run resumed after the rename) wins.
  const entries = Object.entries(s.results ?? {}).sort(([a], [b]) => Number(canonicalChannel(b) !== b) - Number(canonicalChannel(a) !== a));
  for (const [c, r] of entries) results[canonicalChannel(c) as SyncChannel] = r;
  return { ...s, channels: [...new Set(s.channels.map((c) => canonicalChannel(c) as SyncChannel))], results };
}

async function saveResult(s: SyncRecord, channel: SyncChannel, result: ChannelResult) {
  await saveSyncResult(s, channel, result);
}

/**
 * The worker's side: runs a queued sync once. A redelivered message for a finished sync does
 * nothing; a redelivered one for a sync still marked processing (its worker died) runs it again,
 * which the upserts make harmless.
 */
export async function runSync(message: SyncMessage, opts: { timeBudgetMs?: number } = {}): Promise<SyncRecord | undefined> {
  const sync = await readSync(message.accountId, message.startedAt, message.syncId);
  if (!sync || sync.status !== 'processing') return sync;
  const signal = AbortSignal.timeout(opts.timeBudgetMs ?? 12 * 60_000);
  // The client's `since` reads by creation; without it, what changed since the last sync.
  const window = sync.since ? { since: sync.since } : { updatedSince: (await defaultUpdatedSince(sync.accountId, sync.syncId)) ?? undefined };
  for (const channel of sync.channels) {
    const result: ChannelResult = { ...emptyResult(), status: 'processing' };
    await saveResult(sync, channel, result);
    try {
      const connection = await marketplaceCredentials().get(sync.accountId, channel);
      if (!connection) throw new Error(`${channel} is no longer connected`);
      for await (const page of connectorFor(channel).fetchOrders(connection, { ...window, signal })) {
        for (const r of page.rejected) {
          result.orders_rejected++;
          if (result.rejected.length < keptRejections) result.rejected.push({ channel_order_id: r.channelOrderId, reason: r.reason });
        }
        const outcomes = await mapLimit(page.orders, 8, (o) => importOrder(sync.accountId, channel, o));
        for (const [n, outcome] of outcomes.entries()) {
          if (typeof outcome === 'object') {
            result.orders_rejected++;
            if (result.rejected.length < keptRejections) result.rejected.push({ channel_order_id: page.orders[n].channelOrderId, reason: outcome.rejected });
            continue;
          }
          result.orders_synced++;
          if (outcome === 'new') result.orders_new++;
          if (outcome === 'updated') result.orders_updated++;
        }
        await saveResult(sync, channel, result);
      }
      result.status = 'completed';
    } catch (err) {
      logger.warn('marketplace sync failed', { syncId: sync.syncId, channel, error: err as Error });
      recordMetric('MarketplaceSyncErrors', 1, { by: channel });
      result.status = 'failed';
      result.error = (err as Error).message?.slice(0, 500) ?? 'failed';
    }
    await saveResult(sync, channel, result);
    sync.results[channel] = result;
  }
  const failed = sync.channels.filter((c) => sync.results[c]?.status === 'failed').length;
  const status: SyncStatus = failed === 0 ? 'completed' : failed === sync.channels.length ? 'failed' : 'completed_with_errors';
  const completedAt = nowIso();
  await finishSyncRun(sync, status, completedAt);
  await releaseLock(sync.accountId, sync.syncId);
  return { ...sync, status, completedAt };
}

/**
 * Without `since`, a sync reads the orders updated (created or changed: a cancellation, a
 * shipment) since the start of the last sync that completed without `since` (an hour earlier,
 * for marketplaces that index late); the first sync of an account reads everything the
 * marketplace's API offers by default. See docs/merchants/marketplaces.md.
 */
async function defaultUpdatedSince(accountId: number, exceptSyncId: string): Promise<string | null> {
  const last = (await recentSyncs(accountId, 20)).find((r) => r.syncId !== exceptSyncId && r.status === 'completed' && !r.since);
  return last ? new Date(Date.parse(last.startedAt) - 3_600_000).toISOString() : null;
}

/** The account's latest syncs, newest first. */
async function recentSyncs(accountId: number, limit: number): Promise<SyncRecord[]> {
  return (await recentSyncRuns(accountId, limit)).map((r) => currentCodes(r as SyncRecord));
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

export async function lastSync(accountId: number): Promise<SyncRecord | undefined> {
  return (await recentSyncs(accountId, 1))[0];
}

export function nextScheduledSync(at = now()): string {
  return nextSyncAfter(at, syncEveryMinutes()).toISOString();
}

/** The schedule's tick: a sync for every account with a connection (an account already syncing is skipped). */
export async function scheduledSync(): Promise<{ started: number; skipped: number }> {
  let started = 0;
  let skipped = 0;
  for (const accountId of await connectedAccountIds()) {
    const system: Principal = { accountId, tokenId: 0, tokenName: 'scheduled sync', email: null, role: 'partner', scopes: [] };
    try {
      await startSync(system, {}, 'scheduled');
      started++;
    } catch (err) {
      if (!(err instanceof Conflict) && !(err instanceof ValidationFailed)) throw err;
      skipped++;
    }
  }
  return { started, skipped };
}

// ---------------------------------------------------------------------------------------------
// Former channel codes: the migration's part (lambdas/services/orders/channel-migration.ts)

/**
 * Moves the account's connection rows under a former code to the current one: in one transaction
 * the current row is put (unless one exists: it is newer) and the former row deleted, conditional on
 * the former row being as read, so a connect or disconnect racing this wins. Then the credentials
 * move (`migrateFormer` of the credentials port). Answers how many rows and credentials moved.
 */
export async function migrateFormerConnections(accountId: number): Promise<{ connections: number; credentials: number; conflicts: string[] }> {
  const out = { connections: 0, credentials: 0, conflicts: [] as string[] };
  const rows = await connectionRows(accountId);
  const codes = new Set(rows.map((r) => r.channel as string));
  for (const row of rows.filter((r) => isFormerChannel(r.channel))) {
    const former = row.channel;
    const channel = canonicalChannel(former);
    const moved = await moveConnection(row, channel, codes.has(channel));
    if (moved === 'moved') out.connections++;
    // Changed meanwhile (connected again, or disconnected): the account's own write stands.
    if (moved === 'busy') out.conflicts.push(`account ${accountId}: the ${former} connection row was being written; run the migration again`);
  }
  for (const channel of syncChannels) {
    if (!formerCodesOf(channel).length) continue;
    if (!(await marketplaceCredentials().migrateFormer(accountId, channel))) continue;
    out.credentials++;
    // Disconnected while the credentials moved: what moved is no connection's any more.
    if (!(await connectedChannels(accountId)).some((c) => c.channel === channel)) {
      await marketplaceCredentials().remove(accountId, channel);
      out.conflicts.push(`account ${accountId}: ${channel} was disconnected during the migration; its credentials were removed`);
    }
  }
  return out;
}

/**
 * Rewrites the account's finished sync records that name a former code (a finished record no
 * longer changes: the write is conditional on its status being the finished one read). A record
 * still processing is left for the next run; it reads as the current codes meanwhile.
 */
export async function migrateFormerSyncs(accountId: number): Promise<number> {
  let moved = 0;
  for await (const page of allSyncRuns(accountId)) {
    for (const row of page) {
      const before = row as SyncRecord;
      const after = currentCodes(before);
      if (after === before || before.status === 'processing') continue;
      if (await rewriteSyncRunCodes(row, after.channels, after.results)) moved++;
    }
  }
  return moved;
}
