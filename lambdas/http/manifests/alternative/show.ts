import { route } from '#http/kit/route';
import { ok } from '#http/kit/reply';
import { manifestProducts } from '#services/manifests/tracking';
import { ManifestsShow } from '#catalog/manifests';

/** GET /v1/manifests/{manifest} (spec 4.5): the products with their results, a page at a time. */
export const handler = route(ManifestsShow.schemas, async ({ params, query, principal }) => {
  const { manifest, products, meta } = await manifestProducts(principal, params.manifest, query.page, query.per_page);
  return ok({ manifest, products }, { extra: { meta } });
});
