import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { openedCursor, signedMeta } from '#services/cursors';
import { exportDecisions } from '#services/review/decisions-export';
import { AdminAccountTariffDecisions } from '#catalog/admin';

/** A page of the account's decisions as labeled items (the consent is tariff-consent.ts). */
export const handler = route(AdminAccountTariffDecisions.schemas, async ({ params, query }) => {
  const { data, meta } = await exportDecisions(params.id, await openedCursor(query.cursor), query.per_page);
  return ok(data, { extra: { meta: await signedMeta(meta, query.cursor) } });
});
