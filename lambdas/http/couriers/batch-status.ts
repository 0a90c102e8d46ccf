import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { batchStatuses } from '../../services/manifests/tracking';
import { couriersRoutes } from './routes';

export const handler = route(couriersRoutes.CouriersBatchStatus.schemas, async ({ body, principal }) => ok(await batchStatuses(principal, body.manifests)));
