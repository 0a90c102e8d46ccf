import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { migrateChannelCodes } from '#services/orders/channel-migration';
import { AdminMigrateChannelCodes } from '#catalog/admin';

/**
 * POST /v1/admin/migrations/channel-codes: rewrites items stored under a former channel code
 * (`mercadolibre`) to the current one (`meli`) for about 20 s, then answers a cursor to go on
 * with; `npm run cli -- migrate channel-codes` calls it until `done`. Safe to repeat and to run
 * while the service runs.
 */
export const handler = route(AdminMigrateChannelCodes.schemas, async ({ body }) => {
  const report = await migrateChannelCodes(body);
  return ok(report, { message: report.done ? 'Every account is on the current channel codes.' : 'Partly done: call again with data.cursor.' });
});
