import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { setClosed } from '#services/manifests/tracking';
import { CouriersBatchClose } from '#catalog/manifests';

/** POST .../close and .../reopen: the last path segment says which. */
export const handler = route(CouriersBatchClose.schemas, async ({ params, principal, event }) => {
  const close = !event.rawPath.endsWith('/reopen');
  const { batch, changed } = await setClosed(principal, params.batchId, close);
  const message = close ? (changed ? 'Batch closed; writes to it are refused (423) until it is reopened.' : 'Batch was already closed.') : changed ? 'Batch reopened.' : 'Batch was not closed.';
  return ok({ batch_id: batch.batchId, manifest_number: batch.manifestNumber, closed: Boolean(batch.closedAt), closed_at: batch.closedAt ?? null, closed_by: batch.closedBy ?? null }, { message });
});
