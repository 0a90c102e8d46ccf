/**
 * The account's order snapshot (services/orders/list-rows.ts), kept close to the account's order
 * version by a worker (workers/orders/order-views.ts), so that no list request reads the whole
 * index: a new function starts from the snapshot and at most `maxChanges` change items.
 *
 * Who asks for a new snapshot (a message `{ accountId, version }` on the `orderViews` queue):
 * - the writer whose version is the first after the snapshot's: in five minutes (`settleSeconds`),
 *   so a trickle of changes costs one snapshot per five minutes, and the last change before a
 *   quiet spell is in a snapshot within minutes (change items are kept a day);
 * - the writer whose versions cross a multiple of `viewEvery` past the snapshot's: at once, so a
 *   busy account's snapshot is never far behind (infra/entities/orders.ts `viewDue`);
 * - a list request that had to read the whole index: at once, written even if the meta says the
 *   snapshot is current (it may be unreadable);
 * - the worker itself, when versions were taken while it wrote (they may have seen the older
 *   snapshot's version): in five minutes.
 *
 * The worker brings the snapshot up to the account's version (the snapshot and the changes since
 * it; the whole index when it has none it can use), writes it, then records its version on the
 * account's order meta (`viewVersion`, only upwards). A message for a version the recorded one has
 * reached does nothing, so repeats, duplicates and redeliveries cost one read.
 */
import { orderMeta, recordViewVersion, settleSeconds } from '#infra/entities/orders';
import { queues } from '#infra/queues';
import { now as clock } from '#infra/clock';
import { applyChanges, current, fullRead, neededFrom, readSnapshot, writeSnapshot } from './list-rows';

export interface ViewMessage {
  accountId: number;
  version: number;
  /** Sent by a list request that could not use the snapshot (missing, unreadable, behind): written whatever the meta says. */
  reader?: boolean;
}

/** What the worker reads of the changes at most before it reads the whole index instead. */
const workerMaxChanges = 20_000;

/** Asks the worker for a snapshot of the account at `version` at least (now, or in `delaySeconds`). */
export async function requestView(message: ViewMessage, delaySeconds = 0): Promise<void> {
  await queues().send('orderViews', message, { delaySeconds });
}

export type ViewOutcome = 'written' | 'current';

/** The worker's part: the account's snapshot brought up to its version, unless already there. */
export async function refreshView(message: ViewMessage): Promise<ViewOutcome> {
  const { accountId } = message;
  const meta = await orderMeta(accountId);
  if (!message.reader && meta.viewVersion >= message.version) return 'current';
  const now = clock().getTime();
  const version = meta.version;
  const snapshot = await readSnapshot(accountId);
  const caughtUp = snapshot && current(snapshot, version, now) && (await applyChanges(accountId, snapshot, neededFrom(snapshot), version, now, workerMaxChanges));
  const rows = caughtUp ? snapshot : await fullRead(accountId, version, now);
  await writeSnapshot(accountId, rows);
  const after = await recordViewVersion(accountId, rows.version);
  // Versions taken while this snapshot was made saw the former snapshot's version: one of them
  // may have been the first after it, and asked for nothing.
  if (after > rows.version) await requestView({ accountId, version: after }, settleSeconds);
  return 'written';
}
