import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { connectedChannels } from '#services/orders/sync';

/** GET /v1/marketplaces: the account's marketplace connections, without their credentials (a module per route, issue 46). */
export const handler = route({}, async ({ principal }) =>
  ok({ marketplaces: (await connectedChannels(principal.accountId)).map((c) => ({ channel: c.channel, base_url: c.baseUrl, updated_at: c.updatedAt })) }),
);
