import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { migrateTokenScopes } from '#services/auth/token-scopes-migration';
import { AdminMigrateTokenScopes } from '#catalog/admin';

/**
 * POST /v1/admin/migrations/token-scopes: writes out the scopes of the tokens issued before every
 * route named one (what each could do then) for about 20 s, then answers a cursor to go on with;
 * `npm run cli -- migrate token-scopes` calls it until `done`. Safe to repeat and to run while the
 * service runs.
 */
export const handler = route(AdminMigrateTokenScopes.schemas, async ({ body }) => {
  const report = await migrateTokenScopes(body);
  return ok(report, { message: report.done ? 'Every token has its scopes written out.' : 'Partly done: call again with data.cursor.' });
});
