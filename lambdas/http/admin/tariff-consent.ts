import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { setTariffConsent } from '#services/auth/accounts';
import { accountView } from '#core/auth/views';
import { NotFound } from '#core/errors';
import { AdminAccountTariffConsent } from '#catalog/admin';

/**
 * Records the account's consent (or its withdrawal) to export the broker's decisions on its
 * products. A module of its own, without the export's cursors and reads (issue 46).
 */
export const handler = route(AdminAccountTariffConsent.schemas, async ({ params, body }) => {
  const account = await setTariffConsent(params.id, body.share_decisions, body.reference);
  if (!account) throw new NotFound('Account not found.');
  return ok(accountView(account), { message: body.share_decisions ? 'Consent recorded: its decisions may be exported.' : 'Consent withdrawn: its decisions are no longer exported.' });
});
