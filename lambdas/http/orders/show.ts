import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { orderDetailView } from '#core/orders/views';
import { findOrder } from '#services/orders/orders';
import { OrdersShow } from '#catalog/orders';

export const handler = route(OrdersShow.schemas, async ({ params, principal }) => ok(orderDetailView(await findOrder(principal, params.id))));
