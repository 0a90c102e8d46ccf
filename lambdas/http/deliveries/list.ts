import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { proofView } from '#core/deliveries/proof';
import { listProofs } from '#services/deliveries/find';
import { DeliveriesList } from '#catalog/deliveries';

export const handler = route(DeliveriesList.schemas, async ({ query, principal }) => {
  const filter = query.awb_number !== undefined ? { awbNumber: query.awb_number } : query.manifest_id !== undefined ? { manifestNumber: query.manifest_id } : { mawbNumber: query.mawb_number! };
  const page = await listProofs(principal, filter, { cursor: query.cursor, perPage: query.per_page });
  return ok(
    page.proofs.map((p) => proofView(p.proof, p.downloadUrl)),
    { extra: { meta: { per_page: query.per_page, cursor: query.cursor ?? null, next_cursor: page.nextCursor } } },
  );
});
