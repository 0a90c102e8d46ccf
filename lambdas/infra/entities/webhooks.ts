import { isConditionalFailure } from './entity';
import { subscriptions, type SubscriptionItem } from './webhooks/subscription';
import { deliveries, type Attempt, type DeliveryItem, type DeliveryState } from './webhooks/delivery';
import { secretSealer, type SecretBinding } from '../sealed-secrets';
import { logger } from '#shared/logger';

/** A webhook subscription as stored (its secrets sealed). */
export type Subscription = SubscriptionItem;

/** A subscription with its secrets opened, for the functions that sign. */
export type SigningSubscription = Subscription & { secret: string; previousSecret?: string };

export type { Attempt, DeliveryState } from './webhooks/delivery';

/** One event's delivery to one subscription, with its attempts. */
export type Delivery = DeliveryItem;

const bindingOf = (s: Pick<Subscription, 'id' | 'accountId'>): SecretBinding => ({ purpose: 'webhook-signing', account: s.accountId, subscription: s.id });

/** Creates the subscription with its signing secret sealed: the item holds ciphertext only. */
export async function createSubscription(s: Subscription, secret: string): Promise<void> {
  const sealedSecret = await secretSealer().seal(secret, bindingOf(s));
  // The subscription's fields one by one: never a plain secret the object given may carry.
  const { id, accountId, endpointUrl, events, active, consecutiveFailures, failedDeliveries, createdAt, updatedAt, lastDeliveryAt, lastSuccessAt, disabledReason, createdByTokenId, createdByName } = s;
  const item = { id, accountId, endpointUrl, events, active, consecutiveFailures, failedDeliveries, createdAt, updatedAt, lastDeliveryAt, lastSuccessAt, disabledReason, createdByTokenId, createdByName, sealedSecret };
  await subscriptions().create(item).go();
}

/**
 * Replaces the signing secret (rotation), sealed; a plain one of an item written before issue 31
 * goes. With `previousUntil`, the replaced secret is kept as `sealedPreviousSecret` until then (its
 * ciphertext as stored, bound to the same subscription: no one opens it to keep it). False when the
 * subscription is gone.
 */
export async function setSubscriptionSecret(sub: Pick<Subscription, 'id' | 'accountId' | 'sealedSecret' | 'legacySecret'>, secret: string, at: string, previousUntil?: string): Promise<boolean> {
  const sealer = secretSealer();
  const sealedSecret = await sealer.seal(secret, bindingOf(sub));
  const previous = previousUntil === undefined ? undefined : (sub.sealedSecret ?? (sub.legacySecret === undefined ? undefined : await sealer.seal(sub.legacySecret, bindingOf(sub))));
  const kept = previous === undefined ? {} : { sealedPreviousSecret: previous, previousSecretExpiresAt: previousUntil };
  try {
    await subscriptions().patch({ id: sub.id }).set({ sealedSecret, updatedAt: at, ...kept }).remove(['legacySecret']).go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * Seals the plain secret of an item written before issue 31, if the item still holds that one and
 * nothing sealed (a conditional write: a rotation or another sealing since wins). True when this
 * call sealed it.
 */
export async function sealLegacySecret(sub: Pick<Subscription, 'id' | 'accountId' | 'legacySecret'>): Promise<boolean> {
  if (sub.legacySecret === undefined) return false;
  const sealedSecret = await secretSealer().seal(sub.legacySecret, bindingOf(sub));
  try {
    await subscriptions()
      .patch({ id: sub.id })
      .set({ sealedSecret })
      .remove(['legacySecret'])
      .where(({ legacySecret, sealedSecret: sealed }, { eq, notExists }) => `${eq(legacySecret, sub.legacySecret!)} AND ${notExists(sealed)}`)
      .go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * The subscription with its signing secret opened, for the functions that sign (delivery, test,
 * retry). A plain secret of an item written before issue 31 is used as it is and sealed on the way
 * (read-through migration; a failure to seal is logged, the delivery still goes).
 */
export async function withSigningSecret(sub: Subscription): Promise<SigningSubscription> {
  if (sub.sealedSecret !== undefined) {
    const [secret, previousSecret] = await Promise.all([
      secretSealer().open(sub.sealedSecret, bindingOf(sub)),
      sub.sealedPreviousSecret === undefined ? undefined : secretSealer().open(sub.sealedPreviousSecret, bindingOf(sub)),
    ]);
    return { ...sub, secret, ...(previousSecret === undefined ? {} : { previousSecret }) };
  }
  if (sub.legacySecret === undefined) throw new Error(`Webhook subscription ${sub.id} has no signing secret`);
  await sealLegacySecret(sub).catch((err: unknown) => logger.warn('could not seal a webhook secret stored in clear', { subscriptionId: sub.id, error: (err as Error).message }));
  return { ...sub, secret: sub.legacySecret };
}

export async function getSubscription(id: number): Promise<Subscription | undefined> {
  const res = await subscriptions().get({ id }).go({ consistent: true });
  return res.data ?? undefined;
}

export async function listSubscriptions(accountId: number): Promise<Subscription[]> {
  const res = await subscriptions().query.byAccount({ accountId }).go({ pages: 'all' });
  return res.data;
}

export async function updateSubscription(id: number, patch: Partial<Omit<Subscription, 'id' | 'accountId' | 'createdAt'>>): Promise<Subscription | undefined> {
  try {
    const res = await subscriptions().patch({ id }).set(patch).go({ response: 'all_new' });
    return res.data;
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
    const sub = res.data;
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
    await deliveries().create(d).go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

export async function getDelivery(subscriptionId: number, eventId: string): Promise<Delivery | undefined> {
  const res = await deliveries().get({ subscriptionId, eventId }).go({ consistent: true });
  return res.data ?? undefined;
}

/** By its public id (the index holds the whole item; attempts are written conditionally anyway). */
export async function getDeliveryById(id: number): Promise<Delivery | undefined> {
  const res = await deliveries().query.byId({ id }).go();
  return res.data[0];
}

/** Newest first. */
export async function listDeliveries(subscriptionId: number): Promise<Delivery[]> {
  const res = await deliveries().query.bySubscription({ subscriptionId }).go({ pages: 'all', order: 'desc' });
  return res.data;
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
    return res.data;
  } catch (err) {
    if (isConditionalFailure(err)) return undefined;
    throw err;
  }
}
