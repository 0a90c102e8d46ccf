import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { chunkStatus } from '#services/manifests/tracking';
import { CouriersRetryMissing } from '#catalog/manifests';

/** Lists the chunks still to send; it resends nothing itself (spec 4.3). */
export const handler = route(CouriersRetryMissing.schemas, async ({ params, principal }) => {
  const status = await chunkStatus(principal, params.baseIdempotencyKey);
  const missing = status.progress.missing_chunks;
  const message =
    status.status === 'expired'
      ? 'This upload expired; start again with a new base_idempotency_key.'
      : missing.length
        ? `Resend chunk(s) ${missing.join(', ')} with the same base_idempotency_key.`
        : 'No chunk is missing.';
  return ok({ manifest_number: status.manifest_number, missing_chunks: missing, missing_count: missing.length, status: status.status }, { message });
});
