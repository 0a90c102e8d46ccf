import { route } from '../kit/route';
import { submissionStatusOf } from '../../services/manifests/tracking';
import { SubmissionStatusParams } from './schemas';

export const handler = route({ params: SubmissionStatusParams }, async ({ params, principal }) => {
  const status = await submissionStatusOf(principal, params.idempotencyKey.trim().toLowerCase());
  return { status: 200, body: { success: true, ...status } };
});
