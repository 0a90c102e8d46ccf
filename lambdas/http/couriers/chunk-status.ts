import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { chunkStatus } from '../../services/manifests/tracking';
import { BaseKeyParams } from './schemas';

export const handler = route({ params: BaseKeyParams }, async ({ params, principal }) => ok(await chunkStatus(principal, params.baseIdempotencyKey)));
