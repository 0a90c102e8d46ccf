import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { maskAccountNumber } from '#core/shipping/carrier-accounts';
import { connectedCarriers } from '#services/shipping/carrier-accounts';

/** GET /v1/carriers: the account's carrier accounts, numbers masked, without credentials (a module per route, issue 46). */
export const handler = route({}, async ({ principal }) =>
  ok({
    carriers: (await connectedCarriers(principal.accountId)).map((c) => ({
      carrier: c.carrier,
      account_number: maskAccountNumber(c.accountNumber),
      environment: c.environment,
      updated_at: c.updatedAt,
    })),
  }),
);
