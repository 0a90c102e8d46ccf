import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { IdParams } from '../kit/schemas';
import { orderDetailView } from '../../core/orders/views';
import { findOrder } from '../../services/orders/orders';

export const handler = route({ params: IdParams }, async ({ params, principal }) => ok(orderDetailView(await findOrder(principal, params.id))));
