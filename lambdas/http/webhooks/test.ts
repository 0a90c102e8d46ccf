import { route } from '../kit/route';
import { sendTest } from '#services/webhooks/webhooks';
import { WebhooksTest } from '#catalog/webhooks';

/** 200 when the endpoint accepted the signed test, 502 with its answer when it did not. */
export const handler = route(WebhooksTest.schemas, async ({ params, principal }) => {
  const r = await sendTest(principal, params.id);
  if (r.ok) return { status: 200, body: { success: true, message: 'Test delivered.', data: { status_code: r.statusCode, response_time_ms: r.responseTimeMs } } };
  return {
    status: 502,
    body: {
      success: false,
      message: 'The endpoint did not accept the test delivery.',
      data: { status_code: r.statusCode, error: r.error ?? `HTTP ${r.statusCode}`, response_time_ms: r.responseTimeMs },
    },
  };
});
