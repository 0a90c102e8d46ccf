import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { pipelineStatusView } from '#core/manifests/views';
import { requireBatch } from '#services/manifests/tracking';
import { CouriersPipelineStatus } from '#catalog/manifests';

export const handler = route(CouriersPipelineStatus.schemas, async ({ params, principal }) => ok(pipelineStatusView(await requireBatch(principal, params.manifest))));
