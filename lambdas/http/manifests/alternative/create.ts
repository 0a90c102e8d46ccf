import { route } from '#http/kit/route';
import { ok } from '#http/kit/reply';
import { idempotencyKey } from '#http/kit/idempotency-key';
import { validate } from '#http/kit/validate';
import { parseJson, validateBody } from '#http/kit/json-body';
import { AlternativeManifest, toSubmissionInput } from '#core/manifests/alternative';
import { ManifestSubmission } from '#core/manifests/submission';
import { checkSignature, submitManifest } from '#services/manifests/intake';
import { writeInRequest } from '#services/manifests/writer';

/**
 * POST /v1/manifests: the alternative interface's upload (spec 4.5). Raw, like the courier
 * webhook: X-Signature is checked on the exact bytes, before the body is read.
 */
export const handler = route({ bodyMode: 'raw' }, async ({ rawBody, headers, principal }) => {
  const key = idempotencyKey(headers);
  const sender = await checkSignature(principal, rawBody ?? Buffer.alloc(0), headers['x-signature']);
  const body = validateBody(AlternativeManifest, parseJson(rawBody, headers['content-type']));
  const submission = validate(ManifestSubmission, toSubmissionInput(body));
  const answer = await submitManifest(sender, 'alternative', submission, key, { writesInRequest: true });
  // A 201 says the manifest exists: its items are written (at most 1000) before the answer, and
  // it is listed and shown, pending, from then on; processing stays asynchronous.
  await writeInRequest(answer.submission!);
  // Made only of what the stored acceptance holds (the same content under the same key), so a
  // replay answers the first answer's bytes, word for word, plus Idempotent-Replayed.
  const data = { manifest_id: body.manifest, batch_id: answer.batchId ?? null, total_products: body.products.length, processing_status: 'pending' };
  const reply = ok(data, { status: 201, message: String(answer.body.message) });
  return answer.replayed ? { ...reply, headers: { 'Idempotent-Replayed': 'true' } } : reply;
});
