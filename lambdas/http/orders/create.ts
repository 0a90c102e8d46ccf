import { route } from '../kit/route';
import { created } from '../kit/reply';
import { idempotencyKey } from '../kit/idempotency-key';
import { orderDetailView } from '#core/orders/views';
import { createWebOrder } from '#services/orders/orders';
import { OrdersCreate } from '#catalog/orders';

/** Web-store orders (channel `web`): the service computes the totals. A documented extension of 4.1. */
export const handler = route(OrdersCreate.schemas, async ({ body, headers, principal }) =>
  created(orderDetailView(await createWebOrder(principal, body, idempotencyKey(headers))), 'Order created.'),
);
