/**
 * GET /v1/orders: filters, search and page numbers with an exact `total`, over an account's index
 * rows (one small row per order, read consistently). The rows of an account are cached in the
 * function's memory with the account's order `version`; each request reads that version (one
 * strongly consistent GetItem) and reads the rows again only when it moved, so a change is
 * listed by the very next request while a quiet list costs one GetItem plus the BatchGet of the
 * page's orders. A cache entry also expires after `maxAgeMs`, the bound on how long a writer that
 * died between its order write and its version bump can go unlisted.
 */
import type { Principal } from '#core/auth/principal';
import { searchable } from '#core/orders/model';
import { getOrders, orderMeta, readIndex, type IndexRow } from '#infra/entities/orders';
import type { OrderRecord } from '#core/orders/model';
import { Lru } from '#shared/lru';

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

interface Cached {
  version: number;
  loadedAt: number;
  rows: (IndexRow & { text: string; ms: number })[];
}

const maxAgeMs = 60_000;
const maxAccounts = 64;
const cache = new Lru<number, Cached>(maxAccounts);
const loading = new Map<string, Promise<Cached['rows']>>();

async function rowsOf(accountId: number): Promise<Cached['rows']> {
  const { version } = await orderMeta(accountId);
  const hit = cache.get(accountId);
  if (hit && hit.version === version && Date.now() - hit.loadedAt < maxAgeMs) return hit.rows;
  // Requests that find the same stale version share one read of the rows.
  const key = `${accountId}#${version}`;
  let load = loading.get(key);
  if (!load) {
    load = readIndex(accountId)
      .then((rows) => {
        const loaded = rows.map((r) => ({ ...r, text: searchable(`${r.orderNumber}\u0000${r.customerName}`), ms: Date.parse(r.createdAt) }));
        cache.set(accountId, { version, loadedAt: Date.now(), rows: loaded });
        return loaded;
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
