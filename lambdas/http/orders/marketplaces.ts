import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { byMethod } from '../kit/by-method';
import { connectMarketplace, connectedChannels, connectionBaseUrl, disconnectMarketplace, requireUsableCredentials } from '#services/orders/sync';
import { ValidationFailed } from '#core/errors';
import { MarketplacesConnect, MarketplacesDisconnect } from '#catalog/orders';

/** The account's marketplace connections: credentials go in encrypted and never come back out. */
export const handler = byMethod({
  GET: route({}, async ({ principal }) => ok({ marketplaces: (await connectedChannels(principal.accountId)).map((c) => ({ channel: c.channel, base_url: c.baseUrl, updated_at: c.updatedAt })) })),
  PUT: route(MarketplacesConnect.schemas, async ({ params, body, principal }) => {
    requireUsableCredentials(params.channel, body.credentials);
    // The account's tokens go to this address: only the marketplace's own API hosts, except on the twin.
    const checked = connectionBaseUrl(params.channel, body.base_url, body.credentials);
    if (!checked) throw new ValidationFailed({ base_url: [`${params.channel} needs base_url (e.g. https://<shop>.myshopify.com).`] });
    if ('problem' in checked) throw new ValidationFailed({ base_url: [`The base URL ${checked.problem}.`] });
    const { baseUrl } = checked;
    await connectMarketplace(principal, { channel: params.channel, baseUrl, credentials: body.credentials });
    return ok({ channel: params.channel, base_url: baseUrl, credentials: Object.keys(body.credentials).sort() }, { message: `${params.channel} connected.` });
  }),
  DELETE: route(MarketplacesDisconnect.schemas, async ({ params, principal }) => {
    await disconnectMarketplace(principal, params.channel);
    return ok(undefined, { message: `${params.channel} disconnected.` });
  }),
});
