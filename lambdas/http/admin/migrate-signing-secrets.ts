import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { migrateSigningSecrets } from '#services/auth/signing-secrets-migration';
import { AdminMigrateSigningSecrets } from '#catalog/admin';

/**
 * POST /v1/admin/migrations/signing-secrets: seals the webhook and manifest signing secrets still
 * stored in clear (items written before issue 31) for about 20 s, then answers a cursor to go on
 * with; `npm run cli -- migrate signing-secrets` calls it until `done`. Safe to repeat and to run
 * while the service runs.
 */
export const handler = route(AdminMigrateSigningSecrets.schemas, async ({ body }) => {
  const report = await migrateSigningSecrets(body);
  return ok(report, { message: report.done ? 'No signing secret is stored in clear.' : 'Partly done: call again with data.cursor.' });
});
