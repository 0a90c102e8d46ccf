import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { disconnectCarrier } from '#services/shipping/carrier-accounts';
import { CarriersDisconnect } from '#catalog/shipping';

/** DELETE /v1/carriers/{carrier}: forgets a carrier account and its credentials. */
export const handler = route(CarriersDisconnect.schemas, async ({ params, principal }) => {
  await disconnectCarrier(principal.accountId, params.carrier);
  return ok(undefined, { message: `${params.carrier} disconnected.` });
});
