import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { correctClassification } from '#services/review/review';
import { ReviewClassification } from '#catalog/review';

/** PUT .../products/{awb}/classification: the broker's decision on a product's NCM. */
export const handler = route(ReviewClassification.schemas, async ({ params, body, principal }) => {
  const { changed, data } = await correctClassification(principal, params.manifest, { awb: params.awb, ncmCode: body.ncm_code, reason: body.reason, itemKey: body.item_key });
  return ok(data, { message: changed ? `NCM of ${data.item_key} set to ${data.product.ncm_code}; its shipment was computed again.` : 'That decision was already recorded; nothing changed.' });
});
