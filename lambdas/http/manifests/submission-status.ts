import { route } from '../kit/route';
import { submissionStatusOf } from '#services/manifests/tracking';
import { CouriersSubmissionStatus } from '#catalog/manifests';

export const handler = route(CouriersSubmissionStatus.schemas, async ({ params, principal }) => {
  const status = await submissionStatusOf(principal, params.idempotencyKey.trim().toLowerCase());
  return { status: 200, body: { success: true, ...status } };
});
