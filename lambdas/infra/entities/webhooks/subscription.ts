import type { EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, optional } from '../entity';

/** A webhook subscription: where an account's events go, and how its deliveries have fared. */
export const subscriptions = defineEntity({
  model: { entity: 'webhookSubscription', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ accountId: 'number', endpointUrl: 'string' }),
    events: { type: 'list', items: { type: 'string' }, required: true },
    ...required({ active: 'boolean' }),
    /**
     * The HMAC signing secret as stored: ciphertext bound to this subscription (sealed-secrets.ts).
     * Only the functions that sign open it (`withSigningSecret`).
     */
    ...optional({ sealedSecret: 'string' }),
    // Items written before issue 31 hold the secret in clear, under `secret`, until it is sealed (`sealLegacySecret`).
    legacySecret: { type: 'string', field: 'secret' },
    consecutiveFailures: { type: 'number', required: true, default: 0 },
    failedDeliveries: { type: 'number', required: true, default: 0 },
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    /** Who made it (issue 41): the token and its name; a revocation with `cascade` disables what its token made. */
    ...optional({ createdByTokenId: 'number', createdByName: 'string' }),
    ...optional({ lastDeliveryAt: 'string', lastSuccessAt: 'string', disabledReason: 'string' }),
    /**
     * The sealed secret a rotation replaced (a copy of the former `sealedSecret`, bound to the same
     * subscription), which still signs `webhook-signature` until `previousSecretExpiresAt`.
     */
    ...optional({ sealedPreviousSecret: 'string', previousSecretExpiresAt: 'string' }),
  },
  indexes: {
    byId: { pk: key('pk', 'WEBHOOKSUB#${id}'), sk: key('sk', 'SUB') },
    byAccount: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNT#${accountId}#WEBHOOKSUBS'), sk: key('gsi1sk', 'SUB#${idKey}') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type SubscriptionItem = EntityItem<ReturnType<typeof subscriptions>>;
