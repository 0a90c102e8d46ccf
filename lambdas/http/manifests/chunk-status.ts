import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { chunkStatus } from '#services/manifests/tracking';
import { CouriersChunkStatus } from '#catalog/manifests';

export const handler = route(CouriersChunkStatus.schemas, async ({ params, principal }) => ok(await chunkStatus(principal, params.baseIdempotencyKey)));
