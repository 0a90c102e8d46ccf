import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { standardWebhooksSecret } from '#core/webhooks/delivery-rules';
import { rotateSecret } from '#services/webhooks/webhooks';
import { WebhooksRotateSecret } from '#catalog/webhooks';

/** A new signing secret for every delivery from now on, shown once (in both forms). */
export const handler = route(WebhooksRotateSecret.schemas, async ({ params, principal }) => {
  const { secret, previousSecretExpiresAt } = await rotateSecret(principal, params.id);
  return ok(
    { id: params.id, hmac_secret: secret, standard_webhooks_secret: standardWebhooksSecret(secret), previous_secret_expires_at: previousSecretExpiresAt },
    {
      message: 'Secret rotated.',
      extra: {
        important:
          'Store the new secret now: it is shown only once. X-Service-Signature uses it from now on; webhook-signature carries signatures by both secrets until previous_secret_expires_at.',
      },
    },
  );
});
