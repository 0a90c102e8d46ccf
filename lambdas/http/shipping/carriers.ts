import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { byMethod } from '../kit/by-method';
import { maskAccountNumber } from '#core/shipping/carrier-accounts';
import { connectCarrier, connectedCarriers, disconnectCarrier } from '#services/shipping/carrier-accounts';
import { CarriersConnect, CarriersDisconnect } from '#catalog/shipping';

/** The account's carrier accounts (issue 18): credentials go in encrypted and never come back out. */
export const handler = byMethod({
  GET: route({}, async ({ principal }) =>
    ok({
      carriers: (await connectedCarriers(principal.accountId)).map((c) => ({
        carrier: c.carrier,
        account_number: maskAccountNumber(c.accountNumber),
        environment: c.environment,
        updated_at: c.updatedAt,
      })),
    }),
  ),
  PUT: route(CarriersConnect.schemas, async ({ params, body, principal }) => {
    const account = await connectCarrier(principal.accountId, params.carrier, body);
    return ok(
      { carrier: account.carrier, account_number: maskAccountNumber(account.accountNumber), environment: account.environment, credentials: Object.keys(body).sort() },
      { message: `${account.carrier} connected.` },
    );
  }),
  DELETE: route(CarriersDisconnect.schemas, async ({ params, principal }) => {
    await disconnectCarrier(principal.accountId, params.carrier);
    return ok(undefined, { message: `${params.carrier} disconnected.` });
  }),
});
