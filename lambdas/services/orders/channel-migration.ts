/**
 * The channel-code migration (issue 17, item 2): Mercado Libre's code became `meli`; items stored
 * under the former code `mercadolibre` are rewritten to the current code. Reads already answer
 * the current code and lookups find former keys, so the service works before, during and after
 * a run; the migration lets that fallback find nothing.
 *
 * One call works through the accounts in id order for about `budgetMs` and answers a cursor; the
 * operator CLI (`migrate channel-codes`) calls again with it until `done`. Per account: the
 * marketplace connection rows and credentials, the finished sync records, then every order whose
 * index row holds a former code (its channel key, the order, the index row). Every write is
 * conditional (see `migrateFormerChannel`, `migrateFormerConnections`, `migrateFormerSyncs`), so a
 * run is safe to repeat, to stop anywhere and to make while the service runs.
 */
import { ValidationFailed } from '#core/errors';
import { channelAliases, formerChannels } from '#core/orders/marketplace';
import { listAccounts } from '#infra/entities/auth';
import { formerChannelRows, migrateFormerChannel, type FormerChannelRow } from '#infra/entities/orders';
import { migrateFormerConnections, migrateFormerSyncs } from './sync';
import { encodeCursor, parseCursor } from '#infra/cursors';

export interface ChannelMigrationReport {
  /** True when every account was gone through; else call again with `cursor`. */
  done: boolean;
  cursor: string | null;
  /** The former codes looked for, and the codes they became. */
  codes: Record<string, string>;
  /** Accounts finished by this call. */
  accounts: number;
  orders: number;
  index_rows: number;
  channel_keys: number;
  connections: number;
  credentials: number;
  syncs: number;
  /** Items left as they were, and why (at most 100). */
  conflicts: string[];
}

interface Cursor {
  /** The account to go on with. */
  a: number;
  /** Its last index row done (sort key); absent: the account starts from its connections. */
  s?: string;
}

const encode = (c: Cursor) => encodeCursor(c);

async function decode(cursor: string): Promise<Cursor> {
  const c = await parseCursor(cursor);
  const ok =
    typeof c === 'object' &&
    c !== null &&
    Number.isSafeInteger((c as Cursor).a) &&
    (c as Cursor).a > 0 &&
    ((c as Cursor).s === undefined || (typeof (c as Cursor).s === 'string' && /^[\x21-\x7e]{1,100}$/.test((c as Cursor).s!))) &&
    Object.keys(c).every((k) => k === 'a' || k === 's');
  if (!ok) throw new ValidationFailed({ cursor: ['Is not a cursor this command answered; leave it out to start from the first account.'] });
  return c as Cursor;
}

/** `budgetMs`: how long one call goes on before it answers a cursor (it always gets some work done); `pageSize`: index rows read at a time. */
export async function migrateChannelCodes(input: { cursor?: string }, opts: { budgetMs?: number; now?: () => number; pageSize?: number } = {}): Promise<ChannelMigrationReport> {
  const now = opts.now ?? Date.now;
  const deadline = now() + (opts.budgetMs ?? 20_000);
  const from = input.cursor === undefined ? undefined : (await decode(input.cursor));
  const report: ChannelMigrationReport = {
    done: false,
    cursor: null,
    codes: { ...channelAliases },
    accounts: 0,
    orders: 0,
    index_rows: 0,
    channel_keys: 0,
    connections: 0,
    credentials: 0,
    syncs: 0,
    conflicts: [],
  };
  const conflict = (c: string) => void (report.conflicts.length < 100 && report.conflicts.push(c));
  const ids = (await listAccounts())
    .map((a) => a.id)
    .filter((id) => id >= (from?.a ?? 0))
    .sort((x, y) => x - y);

  let worked = false;
  const timeUp = () => worked && now() > deadline;
  for (const accountId of ids) {
    let after = from?.a === accountId ? from.s : undefined;
    if (timeUp()) return { ...report, cursor: await encode({ a: accountId, s: after }) };
    if (after === undefined) {
      const moved = await migrateFormerConnections(accountId);
      report.connections += moved.connections;
      report.credentials += moved.credentials;
      moved.conflicts.forEach(conflict);
      report.syncs += await migrateFormerSyncs(accountId);
      worked = true;
    }
    for (;;) {
      const page = await formerChannelRows(accountId, formerChannels, after, opts.pageSize);
      await eachLimited(page.rows, 8, async (row: FormerChannelRow) => {
        const out = await migrateFormerChannel(accountId, row);
        if (out.key) report.channel_keys++;
        if (out.order) report.orders++;
        if (out.row) report.index_rows++;
        if (out.conflict) conflict(`account ${accountId}: ${out.conflict}`);
      });
      worked = true;
      after = page.next;
      if (after === undefined) break;
      if (timeUp()) return { ...report, cursor: await encode({ a: accountId, s: after }) };
    }
    report.accounts++;
  }
  return { ...report, done: true };
}

async function eachLimited<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}
