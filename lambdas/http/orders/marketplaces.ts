import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { connectMarketplace, connectionBaseUrl, requireUsableCredentials } from '#services/orders/sync';
import { ValidationFailed } from '#core/errors';
import { MarketplacesConnect } from '#catalog/orders';

/**
 * PUT /v1/marketplaces/{channel}: connects a marketplace; credentials go in encrypted and never
 * come back out (the list and the disconnection are marketplaces-list.ts and marketplaces-disconnect.ts).
 */
export const handler = route(MarketplacesConnect.schemas, async ({ params, body, principal }) => {
  requireUsableCredentials(params.channel, body.credentials);
  // The account's tokens go to this address: only the marketplace's own API hosts, except on the twin.
  const checked = connectionBaseUrl(params.channel, body.base_url, body.credentials);
  if (!checked) throw new ValidationFailed({ base_url: [`${params.channel} needs base_url (e.g. https://<shop>.myshopify.com).`] });
  if ('problem' in checked) throw new ValidationFailed({ base_url: [`The base URL ${checked.problem}.`] });
  const { baseUrl } = checked;
  await connectMarketplace(principal, { channel: params.channel, baseUrl, credentials: body.credentials });
  return ok({ channel: params.channel, base_url: baseUrl, credentials: Object.keys(body.credentials).sort() }, { message: `${params.channel} connected.` });
});
