import { route } from '../kit/route';
import { ok } from '../kit/reply';
import { standardWebhooksSecret } from '#core/webhooks/delivery-rules';
import { rotateSecret } from '#services/webhooks/webhooks';
import { WebhooksRotateSecret } from '#catalog/webhooks';

/** A new signing secret for every delivery from now on, shown once; the old one signs beside it for 24 hours. */
export const handler = route(WebhooksRotateSecret.schemas, async ({ params, principal }) => {
  const { secret, previousSecretExpiresAt } = await rotateSecret(principal, params.id);
  // standard_webhooks_secret: a deprecated alias, equal to hmac_secret, kept for one release.
  return ok(
    { id: params.id, hmac_secret: secret, standard_webhooks_secret: standardWebhooksSecret(secret), previous_secret_expires_at: previousSecretExpiresAt },
    {
      message: 'Secret rotated.',
      extra: {
        important:
          'Store the new secret now: it is shown only once. It signs X-Service-Signature and webhook-signature from now on; until previous_secret_expires_at the old secret signs too (X-Service-Previous-Signature, and a second webhook-signature), so switch your receiver within that time.',
      },
    },
  );
});
