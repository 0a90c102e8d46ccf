/**
 * Every page of a list, one request at a time, as an async iterator. The API's lists come in two
 * kinds, and both are followed:
 * - cursor lists answer `meta.next_cursor` (null on the last page) and take it back as `cursor`
 *   (`after` for GET /api/v1/events, whose last page says `has_more: false`);
 * - page-number lists answer `current_page` and `last_page` in `meta` (or in `data.pagination`,
 *   the orders) and take `page`.
 * An answer that is not a 2xx throws a PageError carrying it.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from './schema';

/** The client as index.ts makes it (named here: index.ts re-exports this module). */
type DespachoClient = Client<paths>;

/** A list's answer, as far as paging reads it. */
interface ListBody {
  data?: unknown;
  meta?: { next_cursor?: string | null; has_more?: boolean; current_page?: number; last_page?: number };
}

export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`the list answered ${status}: ${typeof body === 'object' && body && 'message' in body ? String(body.message) : ''}`);
    this.name = 'PageError';
  }
}

/** The query parameter a path takes its cursor back in. */
const cursorParams: Record<string, string> = { '/api/v1/events': 'after' };

type Query = Record<string, unknown>;

/**
 * Each page's whole answer (`{ success, data, meta }`), from the first (with `init.params.query` as
 * given) to the last. `path` is the documented path (`/api/v1/orders`), its `{}` parameters in
 * `init.params.path`.
 */
export async function* pages<B = ListBody>(api: DespachoClient, path: string, init: { params?: { path?: Record<string, unknown>; query?: Query } } = {}): AsyncGenerator<B> {
  let query: Query = { ...init.params?.query };
  for (;;) {
    const res = (await api.request('get' as never, path as never, { params: { ...init.params, query } } as never)) as { data?: unknown; error?: unknown; response: Response };
    if (!res.response.ok) throw new PageError(res.response.status, res.error);
    const body = res.data as ListBody;
    yield body as B;
    const paging = body.meta ?? {};
    const pagination = (body.data as { pagination?: ListBody['meta'] } | undefined)?.pagination;
    if ('next_cursor' in paging) {
      // The events feed always answers a cursor (to poll from later): `has_more` says whether a page follows now.
      if (!paging.next_cursor || paging.has_more === false) return;
      query = { ...query, [cursorParams[path] ?? 'cursor']: paging.next_cursor };
      continue;
    }
    const numbers = paging.current_page !== undefined ? paging : pagination;
    if (numbers?.current_page === undefined || numbers.last_page === undefined || numbers.current_page >= numbers.last_page) return;
    query = { ...query, page: numbers.current_page + 1 };
  }
}

/**
 * Each item of every page: `data` when it is a list, else the list inside it (`data.orders`,
 * `data.products`, a manifest's `data.items`).
 */
export async function* items<T = unknown>(api: DespachoClient, path: string, init: { params?: { path?: Record<string, unknown>; query?: Query } } = {}): AsyncGenerator<T> {
  for await (const page of pages(api, path, init)) {
    const data = page.data;
    const list = Array.isArray(data) ? data : data && typeof data === 'object' ? Object.values(data).find(Array.isArray) : undefined;
    for (const item of list ?? []) yield item as T;
  }
}
