import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { startSync } from '#services/orders/sync';
import { OrdersSync } from '#catalog/orders';

export const handler = route(OrdersSync.schemas, async ({ body, principal }) => {
  const sync = await startSync(principal, body);
  return ok({ sync_id: sync.syncId, status: sync.status, channels: sync.channels, since: sync.since, started_at: sync.startedAt }, { status: 202, message: 'Sync started.' });
});
