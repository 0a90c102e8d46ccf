import { defineEntity, isConditionalFailure, pad, service, key, required, optional } from './entity';

export interface Subscription {
  id: number;
  accountId: number;
  endpointUrl: string;
  events: string[];
  active: boolean;
  secret: string;
  /** The secret a rotation replaced, which still signs `webhook-signature` until `previousSecretExpiresAt`. */
  previousSecret?: string;
  previousSecretExpiresAt?: string;
  consecutiveFailures: number;
  failedDeliveries: number;
  lastDeliveryAt?: string;
  lastSuccessAt?: string;
  disabledReason?: string;
  createdAt: string;
  updatedAt: string;
}

export interface Attempt {
  attempted_at: string;
  status_code: number | null;
  response_time_ms: number;
  error: string | null;
}

export type DeliveryState = 'pending' | 'retrying' | 'delivered' | 'failed';

export interface Delivery {
  id: number;
  subscriptionId: number;
  accountId: number;
  eventId: string;
  eventType: string;
  /** The exact JSON body every attempt sends (the same envelope id each time). */
  body: string;
  state: DeliveryState;
  attempts: Attempt[];
  nextAttemptAt?: string;
  createdAt: string;
  updatedAt: string;
  /** Epoch seconds; the log keeps a delivery for 30 days. */
  expiresAt?: number;
}

const subscriptions = defineEntity({
  model: { entity: 'webhookSubscription', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ accountId: 'number', endpointUrl: 'string' }),
    events: { type: 'list', items: { type: 'string' }, required: true },
    ...required({ active: 'boolean', secret: 'string' }),
    consecutiveFailures: { type: 'number', default: 0 },
    failedDeliveries: { type: 'number', default: 0 },
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ lastDeliveryAt: 'string', lastSuccessAt: 'string', disabledReason: 'string', previousSecret: 'string', previousSecretExpiresAt: 'string' }),
  },
  indexes: {
    byId: { pk: key('pk', 'WEBHOOKSUB#${id}'), sk: key('sk', 'SUB') },
    byAccount: { index: 'gsi1', pk: key('gsi1pk', 'ACCOUNT#${accountId}#WEBHOOKSUBS'), sk: key('gsi1sk', 'SUB#${idKey}') },
  },
} as const);

const deliveries = defineEntity({
  model: { entity: 'webhookDelivery', version: '1', service },
  attributes: {
    id: { type: 'number', required: true },
    idKey: { type: 'string', hidden: true, watch: ['id'], set: (_: unknown, { id }: { id: number }) => pad(id) },
    ...required({ subscriptionId: 'number', accountId: 'number', eventId: 'string', eventType: 'string', body: 'string' }),
    ...required({ state: ['pending', 'retrying', 'delivered', 'failed'], attempts: 'any' }),
    attemptCount: { type: 'number', default: 0 },
    ...required({ createdAt: 'string', updatedAt: 'string' }),
    ...optional({ nextAttemptAt: 'string' }),
    expiresAt: { type: 'number', field: 'ttl' },
  },
  indexes: {
    // One delivery per (subscription, event): a repeated fan-out finds it already there.
    byEvent: { pk: key('pk', 'WEBHOOKSUB#${subscriptionId}#EVT#${eventId}'), sk: key('sk', 'DELIVERY') },
    bySubscription: { index: 'gsi1', pk: key('gsi1pk', 'WEBHOOKSUB#${subscriptionId}#DELIVERIES'), sk: key('gsi1sk', 'DELIVERY#${idKey}') },
    byId: { index: 'gsi2', pk: key('gsi2pk', 'DELIVERYID#${id}'), sk: key('gsi2sk', 'DELIVERY') },
  },
} as const);

export async function createSubscription(s: Subscription): Promise<void> {
  await subscriptions().create(s as never).go();
}

export async function getSubscription(id: number): Promise<Subscription | undefined> {
  const res = await subscriptions().get({ id }).go({ consistent: true });
  return (res.data ?? undefined) as Subscription | undefined;
}

export async function listSubscriptions(accountId: number): Promise<Subscription[]> {
  const res = await subscriptions().query.byAccount({ accountId }).go({ pages: 'all' });
  return res.data as Subscription[];
}

export async function updateSubscription(id: number, patch: Partial<Omit<Subscription, 'id' | 'accountId' | 'createdAt'>>): Promise<Subscription | undefined> {
  try {
    const res = await subscriptions().patch({ id }).set(patch as never).go({ response: 'all_new' });
    return res.data as Subscription;
  } catch (err) {
    if (isConditionalFailure(err)) return undefined;
    throw err;
  }
}

export async function deleteSubscription(id: number): Promise<void> {
  await subscriptions().delete({ id }).go();
}

/**
 * Counts a failed delivery: one atomic ADD, then switches the subscription off when the run of
 * failures reaches `disableAt` (or at once, `disableNow`, for 410 Gone).
 */
export async function recordFailure(id: number, at: string, disableAt: number, disableNow?: string): Promise<Subscription | undefined> {
  try {
    const res = await subscriptions()
      .patch({ id })
      .add({ consecutiveFailures: 1, failedDeliveries: 1 })
      .set({ lastDeliveryAt: at, updatedAt: at })
      .go({ response: 'all_new' });
    const sub = res.data as Subscription;
    const reason = disableNow ?? (sub.consecutiveFailures >= disableAt ? `Disabled after ${sub.consecutiveFailures} consecutive failed deliveries.` : undefined);
    if (reason && sub.active) return updateSubscription(id, { active: false, disabledReason: reason, updatedAt: at });
    return sub;
  } catch (err) {
    if (isConditionalFailure(err)) return undefined;
    throw err;
  }
}

export async function recordSuccess(id: number, at: string): Promise<void> {
  await updateSubscription(id, { consecutiveFailures: 0, lastDeliveryAt: at, lastSuccessAt: at, updatedAt: at });
}

/** Creates the delivery of an event to a subscription once; false when it already exists. */
export async function createDelivery(d: Delivery): Promise<boolean> {
  try {
    await deliveries().create(d as never).go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

export async function getDelivery(subscriptionId: number, eventId: string): Promise<Delivery | undefined> {
  const res = await deliveries().get({ subscriptionId, eventId }).go({ consistent: true });
  return (res.data ?? undefined) as Delivery | undefined;
}

/** By its public id (the index holds the whole item; attempts are written conditionally anyway). */
export async function getDeliveryById(id: number): Promise<Delivery | undefined> {
  const res = await deliveries().query.byId({ id }).go();
  return res.data[0] as Delivery | undefined;
}

/** Newest first. */
export async function listDeliveries(subscriptionId: number): Promise<Delivery[]> {
  const res = await deliveries().query.bySubscription({ subscriptionId }).go({ pages: 'all', order: 'desc' });
  return res.data as Delivery[];
}

/**
 * Records an attempt only if no other attempt was recorded since this one began (`seenAttempts`),
 * so a duplicated queue message cannot log one attempt twice.
 */
export async function recordAttempt(
  d: Delivery,
  seenAttempts: number,
  attempt: Attempt,
  next: { state: DeliveryState; nextAttemptAt?: string },
): Promise<Delivery | undefined> {
  try {
    const base = deliveries()
      .patch({ subscriptionId: d.subscriptionId, eventId: d.eventId })
      .set({ attempts: [...d.attempts, attempt], attemptCount: seenAttempts + 1, state: next.state, updatedAt: attempt.attempted_at });
    const withNext = next.nextAttemptAt ? base.set({ nextAttemptAt: next.nextAttemptAt }) : base.remove(['nextAttemptAt']);
    const res = await withNext.where(({ attemptCount }, { eq }) => eq(attemptCount, seenAttempts)).go({ response: 'all_new' });
    return res.data as Delivery;
  } catch (err) {
    if (isConditionalFailure(err)) return undefined;
    throw err;
  }
}
