import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { subscriptionsOf, subscriptionView } from '#services/webhooks/webhooks';

/** GET /v1/webhooks: the account's subscriptions. A module of its own, without the creation's sealing (issue 46). */
export const handler = route({}, async ({ principal }) => {
  const subs = await subscriptionsOf(principal.accountId);
  return ok(subs.map(subscriptionView), { extra: { count: subs.length } });
});
