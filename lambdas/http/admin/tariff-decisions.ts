import { route } from '../kit/route';
import { byMethod } from '../kit/by-method';
import { ok } from '../kit/reply';
import { openedCursor, signedMeta } from '#services/cursors';
import { setTariffConsent } from '#services/auth/accounts';
import { exportDecisions } from '#services/review/decisions-export';
import { accountView } from '#core/auth/views';
import { NotFound } from '#core/errors';
import { AdminAccountTariffConsent, AdminAccountTariffDecisions } from '#catalog/admin';

/** Records the account's consent (or its withdrawal) to export the broker's decisions on its products. */
const consent = route(AdminAccountTariffConsent.schemas, async ({ params, body }) => {
  const account = await setTariffConsent(params.id, body.share_decisions, body.reference);
  if (!account) throw new NotFound('Account not found.');
  return ok(accountView(account), { message: body.share_decisions ? 'Consent recorded: its decisions may be exported.' : 'Consent withdrawn: its decisions are no longer exported.' });
});

/** A page of the account's decisions as labeled items. */
const list = route(AdminAccountTariffDecisions.schemas, async ({ params, query }) => {
  const { data, meta } = await exportDecisions(params.id, await openedCursor(query.cursor), query.per_page);
  return ok(data, { extra: { meta: await signedMeta(meta, query.cursor) } });
});

export const handler = byMethod({ PUT: consent, GET: list });
