/**
 * GET /v1/orders: filters, search and page numbers with an exact `total`, over an account's index
 * rows (one small row per order). The rows of an account are cached in the function's memory with
 * the account's order `version`; each request reads that version (one strongly consistent
 * GetItem). When it moved, the request reads the change items since the cached version (each
 * listed change writes one, under the version it took, in its own transaction) and applies them
 * in version order, so a change is listed by the very next request and a request reads the
 * changes since the last one, not the index. A function with no rows of the account, or more than
 * `maxChanges` behind, starts from the account's snapshot (one file, `views/orders/<account>.json.gz`,
 * kept close to the account's version by the view worker: services/orders/list-view.ts) and the
 * changes since it. A request reads the whole index only when the snapshot is missing, unreadable
 * or too far behind (the worker is down, or the account was never listed since the snapshots
 * came); it then asks the worker for a snapshot, so the next function does not. A version seen
 * without its change item (a write in flight) is looked for again by the next requests, for two
 * minutes: past that its writer died before its transaction (the change is written with the row,
 * so nothing of it was written).
 */
import type { Principal } from '#core/auth/principal';
import { searchable } from '#core/orders/model';
import { getOrders, orderMeta } from '#infra/entities/orders';
import type { OrderRecord } from '#core/orders/model';
import { Lru } from '#shared/lru';
import { now as clock } from '#infra/clock';
import { logger } from '#shared/logger';
import { applyChanges, current, fullRead, maxChanges, neededFrom, readSnapshot, type Row, type Rows } from './list-rows';
import { requestView } from './list-view';

export { maxChanges } from './list-rows';

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

const maxAccounts = 64;
const cache = new Lru<number, Rows>(maxAccounts);
const loading = new Map<string, Promise<Row[]>>();

/** A function's first rows of the account: the snapshot brought up to date when it can be, else the index. */
async function firstRows(accountId: number, version: number, now: number): Promise<Rows> {
  const snapshot = await readSnapshot(accountId);
  if (snapshot && current(snapshot, version, now) && version - neededFrom(snapshot) < maxChanges) {
    if (await applyChanges(accountId, snapshot, neededFrom(snapshot), version, now)) return snapshot;
  }
  const read = await fullRead(accountId, version, now);
  // A new account's first lists (no snapshot yet, a few rows) are expected; a snapshot that could
  // not be used, or a large index read, is what an operator looks into.
  const level = snapshot || read.rows.length > maxChanges ? 'warn' : 'info';
  logger[level]('order list read the whole index', { accountId, rows: read.rows.length, snapshotVersion: snapshot?.version ?? null, version });
  // The list answers either way; the next function reads the index again until the worker has run.
  await requestView({ accountId, version, reader: true }).catch((error: Error) => logger.error('could not ask for an order snapshot', { accountId, error }));
  return read;
}

async function rowsOf(accountId: number): Promise<Row[]> {
  const { version } = await orderMeta(accountId);
  const now = clock().getTime();
  const hit = cache.get(accountId);
  if (hit && current(hit, version, now)) {
    if (hit.version >= version && hit.pending.size === 0) return hit.rows;
    if (version - hit.version <= maxChanges) {
      const next: Rows = { ...hit, pending: new Map(hit.pending) };
      if (await applyChanges(accountId, next, neededFrom(hit), version, now)) {
        // A request that read an older version does not put its rows back over newer ones.
        const latest = cache.get(accountId);
        if (!latest || latest.version <= next.version) cache.set(accountId, next);
        return next.rows;
      }
    }
  }
  // Requests that find the same version to load share one load.
  const key = `${accountId}#${version}`;
  let load = loading.get(key);
  if (!load) {
    load = firstRows(accountId, version, now)
      .then((r) => {
        cache.set(accountId, r);
        return r.rows;
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
