import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { findSubscription, subscriptionView } from '#services/webhooks/webhooks';
import { WebhooksShow } from '#catalog/webhooks';

/** GET: one subscription (its change and deletion are subscription-update.ts and subscription-delete.ts, a module per route, issue 46). */
export const handler = route(WebhooksShow.schemas, async ({ params, principal }) => ok(subscriptionView(await findSubscription(principal, params.id))));
