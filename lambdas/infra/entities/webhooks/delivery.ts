import { CustomAttributeType, type EntityItem } from 'electrodb';
import { defineEntity, service, key, pad, required, optional } from '../entity';

export interface Attempt {
  attempted_at: string;
  status_code: number | null;
  response_time_ms: number;
  error: string | null;
}

export const deliveryStates = ['pending', 'retrying', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

/** One event's delivery to one subscription, with its attempts. */
export const deliveries = defineEntity({
  model: { entity: 'webhookDelivery', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ subscriptionId: 'number', accountId: 'number', eventId: 'string', eventType: 'string' }),
    /** The exact JSON body every attempt sends (the same envelope id each time). */
    ...required({ body: 'string', state: deliveryStates }),
    attempts: { type: CustomAttributeType<Attempt[]>('any'), required: true },
    attemptCount: { type: 'number', default: 0 },
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ nextAttemptAt: 'string' }),
    /** Epoch seconds; the log keeps a delivery for 30 days. */
    expiresAt: { type: 'number', field: 'ttl' },
  },
  indexes: {
    // One delivery per (subscription, event): a repeated fan-out finds it already there.
    byEvent: { pk: key('pk', 'WEBHOOKSUB#${subscriptionId}#EVT#${eventId}'), sk: key('sk', 'DELIVERY') },
    bySubscription: { index: 'gsi1', pk: key('gsi1pk', 'WEBHOOKSUB#${subscriptionId}#DELIVERIES'), sk: key('gsi1sk', 'DELIVERY#${idKey}') },
    byId: { index: 'gsi2', pk: key('gsi2pk', 'DELIVERYID#${id}'), sk: key('gsi2sk', 'DELIVERY') },
  },
} as const);

/** An item of the entity as a read answers it. */
export type DeliveryItem = EntityItem<ReturnType<typeof deliveries>>;
