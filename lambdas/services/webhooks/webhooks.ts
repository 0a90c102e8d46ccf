/**
 * Webhooks: subscriptions, fan-out of bus events to deliveries, signed delivery attempts on the
 * retry schedule, and subscription health. Handlers and workers call these.
 */
import type { Principal } from '#core/auth/principal';
import { Conflict, NotFound, ValidationFailed } from '#core/errors';
import { testEventType } from '#core/webhooks/events';
import {
  deliveryTimeoutMs,
  disableAfterFailures,
  health,
  healthColors,
  newSigningSecret,
  nextAttemptAt,
  secretOverlapMs,
  signedHeaders,
} from '#core/webhooks/delivery-rules';
import {
  createDelivery,
  createSubscription,
  deleteSubscription,
  getDelivery,
  getDeliveryById,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  recordAttempt,
  recordFailure,
  recordSuccess,
  setSubscriptionSecret,
  updateSubscription,
  withSigningSecret,
  type Delivery,
  type SigningSubscription,
  type Subscription,
} from '#infra/entities/webhooks';
import { nextId, nextIds } from '#infra/entities/counters';
import type { DomainEvent } from '#infra/events';
import { queues } from '#infra/queues';
import { timers } from '#infra/timers';
import { now } from '#infra/clock';
import { config } from '#shared/config';
import { checkEndpointUrl, postWebhook } from '#infra/webhook-http';
import { isLoopbackAddress, mayReach } from '#infra/forbidden-address';
import { isIP } from 'node:net';
import { logger } from '#shared/logger';
import { envelopeBody, recordEvent } from './feed';
import { recordMetric } from '#shared/metrics';

/** How long the delivery log keeps a delivery (DynamoDB TTL). */
export const deliveryLogDays = 30;

/** What the delivery queue carries: which delivery, and which attempt this message is for. */
export interface DeliveryJob {
  subscriptionId: number;
  eventId: string;
  attempt: number;
  /** An owner's retry of a failed delivery. */
  manual?: boolean;
}

export function subscriptionView(s: Subscription) {
  const status = health(s.consecutiveFailures ?? 0, s.active);
  return {
    id: s.id,
    endpoint_url: s.endpointUrl,
    events: s.events,
    active: s.active,
    health_status: status,
    health_status_color: healthColors[status],
    consecutive_failures: s.consecutiveFailures ?? 0,
    failed_deliveries: s.failedDeliveries ?? 0,
    disabled_reason: s.active ? null : (s.disabledReason ?? null),
    last_delivery_at: s.lastDeliveryAt ?? null,
    last_success_at: s.lastSuccessAt ?? null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    created_by: s.createdByTokenId ? { token_id: s.createdByTokenId, name: s.createdByName ?? null } : null,
  };
}

/**
 * Disables the account's subscriptions a revoked token made (a revocation with `cascade`): they
 * stay, inactive, with the reason, so the account sees what was stopped and can turn one on again.
 * Answers the ids disabled.
 */
export async function disableMadeBy(accountId: number, tokenId: number): Promise<number[]> {
  const at = now().toISOString();
  const made = (await listSubscriptions(accountId)).filter((s) => s.createdByTokenId === tokenId && s.active);
  for (const s of made) await updateSubscription(s.id, { active: false, disabledReason: `The token that created it (${tokenId}) was revoked.`, updatedAt: at });
  return made.map((s) => s.id);
}

export function deliveryView(d: Delivery) {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.state === 'retrying' || d.state === 'pending' ? (d.nextAttemptAt ?? null) : null,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

/** Checked again on the resolved address at every delivery; an IP literal can be judged now. */
export function validateEndpoint(url: string): void {
  const reach = config.webhookReach();
  const problem = checkEndpointUrl(url, { allowHttp: reach === 'loopback' }) ?? selfProblem(url);
  if (problem) throw new ValidationFailed({ endpoint_url: [problem] });
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !mayReach(host, reach)) {
    throw new ValidationFailed({ endpoint_url: ['The endpoint is a private or reserved address.'] });
  }
}

/**
 * With local receivers on (the twin, `loopback`), the twin's own API is still no receiver: a
 * loopback host on the twin's port is refused, at subscription and at every delivery.
 */
function selfProblem(url: string): string | null {
  const port = config.twinPort();
  if (config.webhookReach() !== 'loopback' || port === undefined) return null;
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const local = host === 'localhost' || (isIP(host) !== 0 && isLoopbackAddress(host));
  return local && Number(u.port || (u.protocol === 'https:' ? 443 : 80)) === port ? "The endpoint is this service's own API." : null;
}

/** The account's subscriptions. */
export function subscriptionsOf(accountId: number): Promise<Subscription[]> {
  return listSubscriptions(accountId);
}

/** The caller's own subscription and its delivery log, newest first. */
export async function deliveriesOf(principal: Principal, id: number): Promise<Delivery[]> {
  const sub = await findSubscription(principal, id);
  return listDeliveries(sub.id);
}

/** Deletes the caller's own subscription. */
export async function unsubscribe(principal: Principal, id: number): Promise<void> {
  const sub = await findSubscription(principal, id);
  await deleteSubscription(sub.id);
}

/** The caller's own subscription; another account's answers like a missing one. */
export async function findSubscription(principal: Principal, id: number): Promise<Subscription> {
  const sub = await getSubscription(id);
  if (!sub || (sub.accountId !== principal.accountId && principal.role !== 'admin')) throw new NotFound('Subscription not found.');
  return sub;
}

/** Makes the subscription; its secret is answered this once (the item holds it sealed). */
export async function subscribe(principal: Principal, input: { endpointUrl: string; events: string[]; active: boolean }): Promise<SigningSubscription> {
  validateEndpoint(input.endpointUrl);
  const at = now().toISOString();
  const sub: SigningSubscription = {
    id: await nextId('webhookSubscription'),
    accountId: principal.accountId,
    endpointUrl: input.endpointUrl,
    events: [...new Set(input.events)],
    active: input.active,
    secret: newSigningSecret(),
    consecutiveFailures: 0,
    failedDeliveries: 0,
    createdAt: at,
    updatedAt: at,
    ...(principal.tokenId ? { createdByTokenId: principal.tokenId, createdByName: principal.tokenName } : {}),
  };
  await createSubscription(sub, sub.secret);
  return sub;
}

/**
 * Bus event -> the account's events feed (once, whatever the subscriptions) and one delivery per
 * matching active subscription of the event's account.
 */
export async function fanOut(event: DomainEvent): Promise<number> {
  const body = envelopeBody(event);
  await recordEvent(event, body);
  const subs = (await listSubscriptions(event.account_id)).filter((s) => s.active && s.events.includes(event.type));
  if (subs.length === 0) return 0;
  const firstId = await nextIds('webhookDelivery', subs.length);
  const jobs: DeliveryJob[] = [];
  for (const [i, sub] of subs.entries()) {
    const at = now().toISOString();
    const created = await createDelivery({
      id: firstId + i,
      subscriptionId: sub.id,
      accountId: sub.accountId,
      eventId: event.id,
      eventType: event.type,
      body,
      state: 'pending',
      attempts: [],
      createdAt: at,
      updatedAt: at,
      expiresAt: Math.floor(Date.parse(at) / 1000) + deliveryLogDays * 86_400,
    });
    // A repeated fan-out re-queues a delivery that was made but never attempted, and nothing more.
    const existing = created ? undefined : await getDelivery(sub.id, event.id);
    if (created || (existing && existing.attempts.length === 0)) jobs.push({ subscriptionId: sub.id, eventId: event.id, attempt: 1 });
  }
  await queues().sendBatch('webhookDelivery', jobs);
  return jobs.length;
}

/**
 * One delivery attempt. A message for an attempt that already happened is a duplicate and does
 * nothing, except re-arming the timer of a retry whose scheduling may have been lost.
 */
export async function deliver(job: DeliveryJob): Promise<void> {
  const d = await getDelivery(job.subscriptionId, job.eventId);
  if (!d || d.state === 'delivered') return;
  const done = d.attempts.length;
  if (done !== job.attempt - 1) {
    if (d.state === 'retrying' && d.nextAttemptAt && done === job.attempt) await schedule(d, done + 1, new Date(d.nextAttemptAt));
    return;
  }
  if (d.state === 'failed' && !job.manual) return;
  const sub = await getSubscription(d.subscriptionId);
  if (!sub) return;
  await attempt(await withSigningSecret(sub), d, done, !!job.manual);
}

async function schedule(d: Delivery, attempt: number, at: Date) {
  await timers().at(at, 'webhookDelivery', { subscriptionId: d.subscriptionId, eventId: d.eventId, attempt } satisfies DeliveryJob);
}

async function attempt(sub: SigningSubscription, d: Delivery, done: number, manual: boolean): Promise<Delivery | undefined> {
  const started = now();
  const self = selfProblem(sub.endpointUrl);
  const result = !sub.active
    ? { ok: false, statusCode: null, responseTimeMs: 0, error: 'The subscription is disabled.' }
    : self
      ? { ok: false, statusCode: null, responseTimeMs: 0, error: self }
      : await postWebhook({
        url: sub.endpointUrl,
        body: d.body,
        headers: {
          ...signedHeaders(sub.secret, Math.floor(started.getTime() / 1000), d.body, { id: d.eventId, previousSecrets: overlapping(sub, started) }),
          'X-Service-Event': d.eventType,
          'X-Service-Delivery': String(d.id),
        },
        timeoutMs: deliveryTimeoutMs,
        reach: config.webhookReach(),
      });
  const at = now();
  const record = { attempted_at: started.toISOString(), status_code: result.statusCode, response_time_ms: result.responseTimeMs, error: result.error };
  const gone = result.statusCode === 410;
  const next = result.ok || gone || !sub.active || (manual && d.state === 'failed') ? null : nextAttemptAt(done + 1, at);
  const state = result.ok ? 'delivered' : next ? 'retrying' : 'failed';
  const updated = await recordAttempt(d, done, record, { state, nextAttemptAt: next?.toISOString() });
  if (!updated) return undefined; // another worker recorded this attempt first
  recordMetric('WebhookDeliveries', 1, { by: result.ok ? 'succeeded' : next ? 'retried' : 'failed' });
  if (next) await schedule(updated, done + 2, next);
  if (!sub.active) return updated;
  // A healthy subscription that succeeded within the last second is left as it is: under load
  // that saves a write per delivery, and last_success_at is at most a second behind.
  const fresh = (sub.consecutiveFailures ?? 0) === 0 && sub.lastSuccessAt !== undefined && at.getTime() - Date.parse(sub.lastSuccessAt) < 1000;
  if (result.ok) {
    if (!fresh) await recordSuccess(sub.id, at.toISOString());
  } else {
    const disabled = await recordFailure(sub.id, at.toISOString(), disableAfterFailures, gone ? 'Disabled at once: the endpoint answered 410 Gone.' : undefined);
    if (disabled && !disabled.active) {
      logger.warn('webhook subscription disabled', { subscriptionId: sub.id, reason: disabled.disabledReason });
      recordMetric('WebhookSubscriptionsDisabled');
    }
  }
  return updated;
}

/**
 * Changes a subscription. Sending `active: true` starts its health over (the owner says the
 * endpoint is fixed), whether or not it was disabled.
 */
export async function changeSubscription(
  principal: Principal,
  id: number,
  change: { endpointUrl?: string; events?: string[]; active?: boolean },
): Promise<{ sub: Subscription; reactivated: boolean }> {
  const sub = await findSubscription(principal, id);
  if (change.endpointUrl !== undefined) validateEndpoint(change.endpointUrl);
  const updated = await updateSubscription(sub.id, {
    ...(change.endpointUrl !== undefined ? { endpointUrl: change.endpointUrl } : {}),
    ...(change.events !== undefined ? { events: [...new Set(change.events)] } : {}),
    ...(change.active !== undefined ? { active: change.active } : {}),
    ...(change.active === true ? { consecutiveFailures: 0 } : {}),
    updatedAt: now().toISOString(),
  });
  if (!updated) throw new NotFound('Subscription not found.');
  return { sub: updated, reactivated: change.active === true && !sub.active };
}

/** The rotated-out secret while its overlap lasts (it signs `webhook-signature` beside the new one). */
export function overlapping(sub: SigningSubscription, at: Date): string[] {
  return sub.previousSecret && sub.previousSecretExpiresAt && Date.parse(sub.previousSecretExpiresAt) > at.getTime() ? [sub.previousSecret] : [];
}

/**
 * A new signing secret for every delivery from now on. `X-Service-Signature` switches at once;
 * `webhook-signature` carries the old secret's signature too for 24 hours (Standard Webhooks'
 * rotation), so a receiver can switch within that time.
 */
export async function rotateSecret(principal: Principal, id: number): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  const sub = await findSubscription(principal, id);
  const secret = newSigningSecret();
  const at = now();
  const previousSecretExpiresAt = new Date(at.getTime() + secretOverlapMs).toISOString();
  if (!(await setSubscriptionSecret(sub, secret, at.toISOString(), previousSecretExpiresAt))) throw new NotFound('Subscription not found.');
  return { secret, previousSecretExpiresAt };
}

function assertActive(sub: Subscription) {
  if (!sub.active) throw new Conflict('The subscription is disabled: reactivate it first (PUT active=true).');
}

/** Queues every failed delivery of the subscription (created since `since`) for one more attempt. */
export async function retryFailed(principal: Principal, id: number, since?: string): Promise<number> {
  const sub = await findSubscription(principal, id);
  assertActive(sub);
  const from = since ? new Date(since).toISOString() : '';
  const failed = (await listDeliveries(sub.id)).filter((d) => d.state === 'failed' && d.createdAt >= from);
  await queues().sendBatch(
    'webhookDelivery',
    failed.map((d): DeliveryJob => ({ subscriptionId: d.subscriptionId, eventId: d.eventId, attempt: d.attempts.length + 1, manual: true })),
  );
  return failed.length;
}

/** The owner's "send it again now": one attempt at once, whatever the schedule. */
export async function retryNow(principal: Principal, subscriptionId: number, deliveryId: number): Promise<Delivery> {
  const sub = await findSubscription(principal, subscriptionId);
  const d = await getDeliveryById(deliveryId);
  if (!d || d.subscriptionId !== sub.id) throw new NotFound('Delivery not found.');
  if (d.state === 'delivered') throw new Conflict('This delivery was already delivered.');
  assertActive(sub);
  const updated = await attempt(await withSigningSecret(sub), d, d.attempts.length, true);
  if (!updated) throw new Conflict('Another attempt of this delivery is running; try again in a moment.');
  return updated;
}

/** A signed test delivery; not logged and not counted in the subscription's health. */
export async function sendTest(principal: Principal, id: number) {
  const sub = await withSigningSecret(await findSubscription(principal, id));
  const at = now();
  const testId = `evt_test_${at.getTime()}`;
  const body = JSON.stringify({
    id: testId,
    type: testEventType,
    created_at: at.toISOString(),
    data: { subscription_id: sub.id, message: 'This is a test delivery from Despacho.' },
  });
  const self = selfProblem(sub.endpointUrl);
  if (self) return { ok: false, statusCode: null, responseTimeMs: 0, error: self };
  return postWebhook({
    url: sub.endpointUrl,
    body,
    headers: { ...signedHeaders(sub.secret, Math.floor(at.getTime() / 1000), body, { id: testId, previousSecrets: overlapping(sub, at) }), 'X-Service-Event': testEventType },
    timeoutMs: deliveryTimeoutMs,
    reach: config.webhookReach(),
  });
}
