/**
 * An account's order rows at a version, as the order list holds them (services/orders/list.ts)
 * and as the account's view worker keeps them in the account's snapshot
 * (services/orders/list-view.ts): the rows, the version up to which every change is applied, and
 * the versions taken by writes not seen yet. Both bring rows up to date the same way: the change
 * items since the version, applied in version order, or, past a bound, the whole index.
 */
import { searchable } from '#core/orders/model';
import { readChanges, readIndex, type IndexRow } from '#infra/entities/orders';
import { gunzipSync, gzipSync } from 'node:zlib';
import { blobObjects } from '#infra/blob-objects';

export type Row = IndexRow & { text: string; ms: number };

export interface Rows {
  /** Every change up to this version is applied, except the `pending` ones. */
  version: number;
  /** When `version` was last the account's (its rows were brought up to date to it then). */
  syncedAt: number;
  /** Newest first, as the list answers. */
  rows: Row[];
  /** Versions taken by a write not seen yet (in flight, or its writer died), with when first missed. */
  pending: Map<number, number>;
}

/** What a list request reads of the changes at most; past it the snapshot or the index is read instead. */
export const maxChanges = 1_000;
/**
 * How long rows may go without being brought up to date and still be brought up to date from
 * the change items (kept a day): 12 hours. Rows at the account's version with nothing pending
 * need nothing, however old.
 */
export const maxAgeMs = 12 * 3600_000;
/** A version missing its change this long belonged to a writer that died before writing (functions stop after 30 s). */
const pendingMs = 120_000;
/** Versions taken just before a full read whose writes may land after it: looked for afterwards. */
const overlap = 100;

export const toRow = (r: IndexRow): Row => ({ ...r, text: searchable(`${r.orderNumber}\u0000${r.customerName}`), ms: Date.parse(r.createdAt) });
const newestFirst = (a: Row, b: Row) => b.ms - a.ms || b.id - a.id;

/** The first version `r` still needs: after its version, or the oldest it is waiting for. */
export const neededFrom = (r: Rows) => Math.min(r.version + 1, ...r.pending.keys());

/** Whether `r` is at the account's `version` (or past it), or can be brought up to it from the change items. */
export function current(r: Rows, version: number, now: number): boolean {
  if (r.version >= version && r.pending.size === 0) return true;
  return now - r.syncedAt < maxAgeMs;
}

/** Reads the change items in [from, to] (at most `limit`) into `r`; false when there were more (read the index). */
export async function applyChanges(accountId: number, r: Rows, from: number, to: number, now: number, limit = maxChanges): Promise<boolean> {
  const changes = from <= to ? await readChanges(accountId, from, to, limit + 1) : [];
  if (changes.length > limit) return false;
  const found = new Set(changes.map((ch) => ch.version));
  const byId = new Map(r.rows.map((row) => [row.id, row]));
  for (const ch of changes) {
    r.pending.delete(ch.version);
    if (ch.row) byId.set(ch.row.id, toRow(ch.row));
  }
  for (let v = Math.max(from, r.version + 1); v <= to; v++) if (!found.has(v)) r.pending.set(v, now);
  // Its writer died before its transaction (which writes the change with the row): nothing to list.
  for (const [v, since] of r.pending) if (now - since > pendingMs) r.pending.delete(v);
  if (changes.some((ch) => ch.row)) r.rows = [...byId.values()].sort(newestFirst);
  r.version = Math.max(r.version, to);
  r.syncedAt = now;
  return true;
}

/** The whole index of the account, at `version` (the account's, read before). */
export async function fullRead(accountId: number, version: number, now: number): Promise<Rows> {
  const rows = (await readIndex(accountId)).map(toRow);
  const r: Rows = { version, syncedAt: now, rows, pending: new Map() };
  // Writes that took a version before the read and land after it: their changes are applied (or
  // awaited) too; past `maxChanges` of them nothing is applied and the rows stand as read.
  if (version > 0) await applyChanges(accountId, r, Math.max(1, version - overlap + 1), version, now);
  return r;
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

export const snapshotKey = (accountId: number) => `views/orders/${accountId}.json.gz`;

export async function writeSnapshot(accountId: number, r: Rows): Promise<void> {
  const snapshot: Snapshot = {
    version: r.version,
    syncedAt: r.syncedAt,
    pending: [...r.pending],
    rows: r.rows.map((row) => [row.id, row.orderNumber, row.status, row.fulfillmentStatus, row.channel, row.customerName, row.createdAt]),
  };
  await blobObjects().put(snapshotKey(accountId), gzipSync(JSON.stringify(snapshot)), 'application/gzip');
}

/** The snapshot as rows, or undefined when there is none or it cannot be read. */
export async function readSnapshot(accountId: number): Promise<Rows | undefined> {
  try {
    const body = await blobObjects().get(snapshotKey(accountId));
    if (!body) return undefined;
    const s = JSON.parse(gunzipSync(body).toString('utf8')) as Snapshot;
    if (!Number.isSafeInteger(s.version) || !Number.isFinite(s.syncedAt) || !Array.isArray(s.rows) || !Array.isArray(s.pending)) return undefined;
    const rows = s.rows.map(([id, orderNumber, status, fulfillmentStatus, channel, customerName, createdAt]) =>
      toRow({ id, orderNumber, status, fulfillmentStatus, channel, customerName, createdAt } as IndexRow),
    );
    return { version: s.version, syncedAt: s.syncedAt, rows, pending: new Map(s.pending) };
  } catch {
    return undefined;
  }
}
