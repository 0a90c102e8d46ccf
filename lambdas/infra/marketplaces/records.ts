import type { Address, MarketplaceConnection, MarketplaceOrder, MarketplacePage, RejectedRecord } from '#core/orders/marketplace';
import { MarketplaceError } from './http';
import { mapConcurrent } from '#shared/concurrency';

/**
 * Reading one marketplace record. A record that cannot be mapped throws `RecordError`; the page
 * reports it as a `RejectedRecord` and goes on with the others. Any other error (the marketplace
 * refusing a follow-up request, an abort) is not the record's fault and ends the fetch.
 */
export class RecordError extends Error {
  override readonly name = 'RecordError';
}

const decimalText = /^\d+(\.\d+)?$/;

/** A non-negative amount sent as a JSON number or as decimal text (`"12.50"`); anything else is refused. */
export function amount(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string' && decimalText.test(value.trim())) return Number(value.trim());
  throw new RecordError(`${field} is not an amount: ${JSON.stringify(value) ?? 'missing'}`);
}

/** As `amount`, but absent (undefined or null) is 0. */
export function optionalAmount(value: unknown, field: string): number {
  return value === undefined || value === null ? 0 : amount(value, field);
}

/** A whole, non-negative count (quantities). */
export function count(value: unknown, field: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0) return n;
  throw new RecordError(`${field} is not a quantity: ${JSON.stringify(value) ?? 'missing'}`);
}

/** A required identifier: a non-empty string or a number, as text. */
export function id(value: unknown, field: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  throw new RecordError(`${field} is missing`);
}

/** An instant with any offset, as ISO 8601 UTC. */
export function instant(value: unknown, field: string): string {
  const at = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) throw new RecordError(`${field} is not a date: ${JSON.stringify(value) ?? 'missing'}`);
  return new Date(at).toISOString();
}

/** The fetch's `since` in ms; undefined without one. A `since` that is not an instant is the caller's mistake. */
export function sinceMs(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const at = Date.parse(since);
  if (Number.isNaN(at)) throw new RangeError(`since is not an ISO 8601 instant: ${JSON.stringify(since)}`);
  return at;
}

/** Optional text: trimmed, '' when absent. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/** Optional text: trimmed, null when absent or empty. */
export function textOrNull(value: unknown): string | null {
  return text(value) || null;
}

/** Money sums without float noise (0.1 + 0.2 is 0.3); 4 places keep 3-decimal currencies exact. */
export function money(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

export function sum(values: number[]): number {
  return money(values.reduce((a, b) => a + b, 0));
}

/** The address of an order that has none (no shipment yet, a digital order): every field empty. */
export function emptyAddress(): Address {
  return { name: '', address1: '', address2: null, city: '', state: '', postal_code: '', country: '', phone: null };
}

export function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * One page of raw records mapped to orders, `concurrency` at a time (mapping may fetch more, as
 * ML shipments and Amazon order items do). `idOf` names a record in its rejection; it must not throw.
 */
export async function mapPage(
  records: readonly unknown[],
  idOf: (record: unknown) => string | null,
  map: (record: unknown) => Promise<MarketplaceOrder>,
  concurrency = 1,
): Promise<MarketplacePage> {
  type Outcome = { order: MarketplaceOrder } | { rejected: RejectedRecord };
  const outcomes = await mapConcurrent(records, concurrency, async (record): Promise<Outcome> => {
    try {
      return { order: await map(record) };
    } catch (err) {
      if (err instanceof RecordError) return { rejected: { channelOrderId: idOf(record), reason: err.message } };
      throw err;
    }
  });
  const page: MarketplacePage = { orders: [], rejected: [] };
  for (const o of outcomes) {
    if ('order' in o) page.orders.push(o.order);
    else page.rejected.push(o.rejected);
  }
  return page;
}

/** A credential the connection must hold; without it no request is made. */
export function credential(connection: MarketplaceConnection, key: string): string {
  const value = connection.credentials[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new MarketplaceError(connection.channel, 'unauthorized', null, `${connection.channel}: the connection has no ${key}`);
  }
  return value;
}

/** `path` under the connection's base URL (which may carry a path prefix of its own). */
export function endpoint(baseUrl: string, path: string, query: Record<string, string | number | undefined> = {}): URL {
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}
