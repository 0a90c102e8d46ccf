import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { orderListView } from '#core/orders/views';
import { listOrders } from '#services/orders/list';
import { OrdersList } from '#catalog/orders';

export const handler = route(OrdersList.schemas, async ({ query, principal }) => {
  const { orders, pagination } = await listOrders(principal, query);
  return ok({ orders: orders.map(orderListView), pagination });
});
