import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { batchStatuses } from '#services/manifests/tracking';
import { CouriersBatchStatus } from '#catalog/manifests';

export const handler = route(CouriersBatchStatus.schemas, async ({ body, principal }) => ok(await batchStatuses(principal, body.manifests)));
