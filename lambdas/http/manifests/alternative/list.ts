import { route } from '#http/kit/route';
import { ok } from '#http/kit/reply';
import { paginate } from '#http/kit/paginate';
import { listManifests } from '#services/manifests/tracking';
import { ManifestsList } from '#catalog/manifests';

/** GET /v1/manifests: the alternative interface's list (spec 4.5). Its own module: the upload's intake (S3, KMS, SQS, EventBridge) is not in its bundle. */
export const handler = route(ManifestsList.schemas, async ({ query, principal }) => {
  const all = await listManifests(principal, {});
  const { page, meta } = paginate(all, query.page, query.per_page);
  return ok(
    page.map((m) => ({ manifest_id: m.manifest_id, batch_id: m.batch_id, total_products: m.summary.total_articles, processing_status: m.status, created_at: m.created_at })),
    { extra: { meta } },
  );
});
