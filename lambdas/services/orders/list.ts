/**
 * GET /v1/orders: filters, search and page numbers with an exact `total`, over an account's index
 * rows (one small row per order). The rows of an account are cached in the function's memory with
 * the account's order `version`; each request reads that version (one strongly consistent
 * GetItem). When it moved, the request reads the change items since the cached version (each
 * listed change writes one, under the version it took, in its own transaction) and applies them
 * in version order, so a change is listed by the very next request and a request reads the
 * changes since the last one, not the index. A function with no rows of the account reads the
 * account's snapshot (one file, `views/orders/<account>.json.gz`: the rows at a version, written by
 * the function that read the index, and again every `snapshotEvery` versions by one that applied
 * them) and the changes since it. The whole index is read only when there is no usable snapshot,
 * after more than `maxChanges` changes, or when the rows were last brought up to date more than
 * `maxAgeMs` ago (12 hours: change items are kept a day). A version seen without its change item
 * (a write in flight) is looked for again by the next requests, for `pendingMs`: past that its
 * writer died before its transaction (the change is written with the row, so nothing of it was written).
 */
import type { Principal } from '#core/auth/principal';
import { searchable } from '#core/orders/model';
import { getOrders, orderMeta, readChanges, readIndex, type IndexRow } from '#infra/entities/orders';
import type { OrderRecord } from '#core/orders/model';
import { Lru } from '#shared/lru';
import { gunzipSync, gzipSync } from 'node:zlib';
import { blobObjects } from '#infra/blob-objects';

export interface ListQuery {
  page: number;
  per_page: number;
  status?: string;
  fulfillment_status?: string;
  channel?: string;
  date_from?: string;
  date_to?: string;
  search?: string;
}

type Row = IndexRow & { text: string; ms: number };

interface Cached {
  /** Every change up to this version is applied, except the `pending` ones. */
  version: number;
  /** When `version` was last the account's (a request read it and applied what changed up to it). */
  syncedAt: number;
  /** The version of the account's snapshot as this function last wrote or read it. */
  snapshotVersion: number;
  /** Newest first, as the list answers. */
  rows: Row[];
  /** Versions taken by a write not seen yet (in flight, or its writer died), with when first missed. */
  pending: Map<number, number>;
}

/** What one request reads of the changes at most; past it the whole index is read instead. */
export const maxChanges = 1_000;
const maxAgeMs = 12 * 3600_000;
/** A version missing its change this long belonged to a writer that died before writing (functions stop after 30 s). */
const pendingMs = 120_000;
/** Versions taken just before a full read whose writes may land after it: looked for afterwards. */
const overlap = 100;
/** How many versions a function's rows may be ahead of the snapshot before it writes the snapshot again. */
export const snapshotEvery = 500;
const maxAccounts = 64;
const cache = new Lru<number, Cached>(maxAccounts);
const loading = new Map<string, Promise<Row[]>>();

const toRow = (r: IndexRow): Row => ({ ...r, text: searchable(`${r.orderNumber}\u0000${r.customerName}`), ms: Date.parse(r.createdAt) });
const newestFirst = (a: Row, b: Row) => b.ms - a.ms || b.id - a.id;

/** Reads the change items in [from, to] into `c`; false when there were too many (read the index). */
async function applyChanges(accountId: number, c: Cached, from: number, to: number, now: number): Promise<boolean> {
  const changes = from <= to ? await readChanges(accountId, from, to, maxChanges + 1) : [];
  if (changes.length > maxChanges) return false;
  const found = new Set(changes.map((ch) => ch.version));
  const byId = new Map(c.rows.map((r) => [r.id, r]));
  for (const ch of changes) {
    c.pending.delete(ch.version);
    if (ch.row) byId.set(ch.row.id, toRow(ch.row));
  }
  for (let v = Math.max(from, c.version + 1); v <= to; v++) if (!found.has(v)) c.pending.set(v, now);
  // Its writer died before its transaction (which writes the change with the row): nothing to list.
  for (const [v, since] of c.pending) if (now - since > pendingMs) c.pending.delete(v);
  if (changes.some((ch) => ch.row)) c.rows = [...byId.values()].sort(newestFirst);
  c.version = Math.max(c.version, to);
  return true;
}

async function fullRead(accountId: number, version: number, now: number): Promise<Cached> {
  const rows = (await readIndex(accountId)).map(toRow);
  const c: Cached = { version, syncedAt: now, snapshotVersion: -1, rows, pending: new Map() };
  // Writes that took a version before the read and land after it: their changes are applied (or
  // awaited) too; past `maxChanges` of them nothing is applied and the rows stand as read.
  if (version > 0) await applyChanges(accountId, c, Math.max(1, version - overlap + 1), version, now);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The account's snapshot: its rows at a version, in one file of the files bucket

type StoredRow = [id: number, orderNumber: string, status: string, fulfillmentStatus: string, channel: string, customerName: string, createdAt: string];
interface Snapshot {
  version: number;
  syncedAt: number;
  pending: [version: number, since: number][];
  rows: StoredRow[];
}

const snapshotKey = (accountId: number) => `views/orders/${accountId}.json.gz`;

async function writeSnapshot(accountId: number, c: Cached): Promise<void> {
  const snapshot: Snapshot = {
    version: c.version,
    syncedAt: c.syncedAt,
    pending: [...c.pending],
    rows: c.rows.map((r) => [r.id, r.orderNumber, r.status, r.fulfillmentStatus, r.channel, r.customerName, r.createdAt]),
  };
  await blobObjects().put(snapshotKey(accountId), gzipSync(JSON.stringify(snapshot)), 'application/gzip');
  c.snapshotVersion = c.version;
}

/** The snapshot as rows, or undefined when there is none or it cannot be read (then the index is). */
async function readSnapshot(accountId: number): Promise<Cached | undefined> {
  try {
    const body = await blobObjects().get(snapshotKey(accountId));
    if (!body) return undefined;
    const s = JSON.parse(gunzipSync(body).toString('utf8')) as Snapshot;
    if (!Number.isSafeInteger(s.version) || !Array.isArray(s.rows) || !Array.isArray(s.pending)) return undefined;
    const rows = s.rows.map(([id, orderNumber, status, fulfillmentStatus, channel, customerName, createdAt]) =>
      toRow({ id, orderNumber, status, fulfillmentStatus, channel, customerName, createdAt } as IndexRow),
    );
    return { version: s.version, syncedAt: s.syncedAt, snapshotVersion: s.version, rows, pending: new Map(s.pending) };
  } catch {
    return undefined;
  }
}

/** A function's first rows of the account: the snapshot brought up to date when it can be, else the index. */
async function firstRows(accountId: number, version: number, now: number): Promise<Cached> {
  const snapshot = await readSnapshot(accountId);
  if (snapshot && now - snapshot.syncedAt < maxAgeMs && snapshot.version <= version) {
    const from = Math.min(snapshot.version + 1, ...snapshot.pending.keys());
    if (version - from < maxChanges && (await applyChanges(accountId, snapshot, from, version, now))) {
      snapshot.syncedAt = now;
      return snapshot;
    }
  }
  const read = await fullRead(accountId, version, now);
  await writeSnapshot(accountId, read);
  return read;
}

async function rowsOf(accountId: number): Promise<Row[]> {
  const { version } = await orderMeta(accountId);
  const now = Date.now();
  const hit = cache.get(accountId);
  if (hit && now - hit.syncedAt < maxAgeMs) {
    if (hit.version === version && hit.pending.size === 0) {
      hit.syncedAt = now;
      return hit.rows;
    }
    if (version - hit.version <= maxChanges) {
      const from = Math.min(hit.version + 1, ...hit.pending.keys());
      const next: Cached = { ...hit, pending: new Map(hit.pending) };
      if (await applyChanges(accountId, next, from, version, now)) {
        next.syncedAt = now;
        // A request that read an older version does not put its rows back over newer ones.
        const current = cache.get(accountId);
        if (!current || current.version <= next.version) cache.set(accountId, next);
        if (next.version - next.snapshotVersion >= snapshotEvery) await writeSnapshot(accountId, next);
        return next.rows;
      }
    }
  }
  // Requests that find the same version to load share one load.
  const key = `${accountId}#${version}`;
  let load = loading.get(key);
  if (!load) {
    load = firstRows(accountId, version, now)
      .then((c) => {
        cache.set(accountId, c);
        return c.rows;
      })
      .finally(() => loading.delete(key));
    loading.set(key, load);
  }
  return load;
}

export async function listOrders(principal: Principal, q: ListQuery): Promise<{ orders: OrderRecord[]; pagination: { current_page: number; per_page: number; total: number; last_page: number } }> {
  const rows = await rowsOf(principal.accountId);
  const from = q.date_from ? Date.parse(q.date_from) : undefined;
  const to = q.date_to ? Date.parse(q.date_to) : undefined;
  const needle = q.search ? searchable(q.search.trim()) : undefined;
  const matching = rows.filter(
    (r) =>
      (!q.status || r.status === q.status) &&
      (!q.fulfillment_status || r.fulfillmentStatus === q.fulfillment_status) &&
      (!q.channel || r.channel === q.channel) &&
      (from === undefined || r.ms >= from) &&
      (to === undefined || r.ms <= to) &&
      (!needle || r.text.includes(needle)),
  );
  const start = (q.page - 1) * q.per_page;
  const orders = await getOrders(matching.slice(start, start + q.per_page).map((r) => r.id));
  return {
    orders,
    pagination: { current_page: q.page, per_page: q.per_page, total: matching.length, last_page: Math.max(1, Math.ceil(matching.length / q.per_page)) },
  };
}

/** Forgets every account's rows, as a new function starts without them (tests and benchmarks). */
export function forgetCachedRows(): void {
  cache.clear();
}
