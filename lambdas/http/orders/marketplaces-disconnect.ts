import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { disconnectMarketplace } from '#services/orders/sync';
import { MarketplacesDisconnect } from '#catalog/orders';

/** DELETE /v1/marketplaces/{channel}: forgets a marketplace connection and its credentials. */
export const handler = route(MarketplacesDisconnect.schemas, async ({ params, principal }) => {
  await disconnectMarketplace(principal, params.channel);
  return ok(undefined, { message: `${params.channel} disconnected.` });
});
