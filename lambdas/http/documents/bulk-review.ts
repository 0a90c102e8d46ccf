import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { bulkReview } from '#services/documents/bulk-review';
import { DocumentsBulkReview } from '#catalog/documents';

/** POST /v1/transport/documents/review: the broker's action on many documents, each one's outcome answered. */
export const handler = route(DocumentsBulkReview.schemas, async ({ body, principal }) => {
  const out = await bulkReview(principal, body.action, body.ids, { notes: body.notes, reason: body.reason });
  return ok(out, { message: `${out.done} done, ${out.already} already so, ${out.refused} refused, ${out.not_found} not found.` });
});
