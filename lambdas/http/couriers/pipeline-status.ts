import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { pipelineStatusView } from '../../core/manifests/views';
import { requireBatch } from '../../services/manifests/tracking';
import { ManifestPathParams } from './schemas';

export const handler = route({ params: ManifestPathParams }, async ({ params, principal }) => ok(pipelineStatusView(await requireBatch(principal, params.manifest))));
