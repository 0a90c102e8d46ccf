import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { batchStatuses } from '../../services/manifests/tracking';
import { BatchStatusBody } from './schemas';

export const handler = route({ body: BatchStatusBody }, async ({ body, principal }) => ok(await batchStatuses(principal, body.manifests)));
