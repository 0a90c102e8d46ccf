import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { decideGroup } from '#services/review/groups';
import { ReviewGroupClassification } from '#catalog/review';

/** PUT .../review/groups/{group}/classification: the broker's decision on every product of a group. */
export const handler = route(ReviewGroupClassification.schemas, async ({ params, body, principal }) => {
  const { changed, data } = await decideGroup(principal, params.manifest, params.group, { ncmCode: body.ncm_code, reason: body.reason });
  return ok(data, {
    message: changed ? `NCM ${data.ncm_code} decided for ${data.changed} products of ${data.awbs} AWBs; their shipments were computed again.` : 'That group was already decided; nothing changed.',
  });
});
