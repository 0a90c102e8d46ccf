import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { maskAccountNumber } from '#core/shipping/carrier-accounts';
import { connectCarrier } from '#services/shipping/carrier-accounts';
import { CarriersConnect } from '#catalog/shipping';

/**
 * PUT /v1/carriers/{carrier}: connects a carrier account (issue 18); credentials go in encrypted
 * and never come back out (the list and the disconnection are carriers-list.ts and carriers-disconnect.ts).
 */
export const handler = route(CarriersConnect.schemas, async ({ params, body, principal }) => {
  const account = await connectCarrier(principal.accountId, params.carrier, body);
  return ok(
    { carrier: account.carrier, account_number: maskAccountNumber(account.accountNumber), environment: account.environment, credentials: Object.keys(body).sort() },
    { message: `${account.carrier} connected.` },
  );
});
