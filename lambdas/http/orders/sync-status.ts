import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { lastSync, nextScheduledSync } from '#services/orders/sync';

export const handler = route({}, async ({ principal }) => {
  const last = await lastSync(principal.accountId);
  return ok({
    last_sync: last
      ? {
          sync_id: last.syncId,
          status: last.status,
          trigger: last.trigger,
          since: last.since,
          started_at: last.startedAt,
          completed_at: last.completedAt,
          channels: Object.fromEntries(
            last.channels.map((c) => {
              const r = last.results[c]!;
              return [c, { status: r.status, orders_synced: r.orders_synced, orders_new: r.orders_new, orders_updated: r.orders_updated, orders_rejected: r.orders_rejected, rejected: r.rejected, error: r.error }];
            }),
          ),
        }
      : null,
    next_scheduled_sync: nextScheduledSync(),
  });
});
