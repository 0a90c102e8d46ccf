import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { shippingQuote } from '#services/shipping/quotes';
import { ShippingQuotes } from '#catalog/shipping';

/** `POST /v1/shipping/quotes`: the connected carriers' rates, cheapest first, with DDP for AR on request. */
export const handler = route(ShippingQuotes.schemas, async ({ body, principal }) => ok(await shippingQuote(principal.accountId, body)));
