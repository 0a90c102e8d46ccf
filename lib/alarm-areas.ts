import { shippingRoutes } from '#catalog/shipping';
import type { QueueName } from '#catalog/types';

/**
 * The areas a stage's alarms are read by: one composite alarm per area notifies (lib/observability.ts),
 * and each has its entry in the runbook, docs/operators/runbook.md. Every per-function, per-queue and stage-wide
 * alarm belongs to exactly one area, decided by the table below and nowhere else.
 */
export const alarmAreas = {
  api: {
    title: 'API',
    covers: 'the edge (authorizer, 404/405 fallback, the API\'s 5xx rate and p99 latency), the system, account, admin and dashboard routes, and what every area stands on (the table\'s throttles and system errors, the account\'s Lambda concurrency, backup jobs, stack drift)',
  },
  intake: {
    title: 'Intake',
    covers: 'what partners send in: courier manifests and their status routes, manifest storage, transport documents, proofs of delivery, the manifest-intake worker and queue',
  },
  pipeline: {
    title: 'Pipeline',
    covers: 'the manifest pipeline (start worker and queue, state machine runs, its tasks), the exchange-rate retry worker and queue, and the landed-cost quote, which runs the same classification and calculations',
  },
  webhooks: {
    title: 'Webhooks',
    covers: 'webhook subscription routes, the fan-out and delivery workers and queues, disabled subscriptions',
  },
  orders: {
    title: 'Orders and marketplaces',
    covers: 'order, inventory and warehouse routes, marketplace connections, the marketplace-sync and order-views workers and queues, sync errors',
  },
  carriers: {
    title: 'Carriers',
    covers: 'shipping routes (labels, tracking updates, carrier accounts, quotes), the tracking-poll worker and queue',
  },
} as const;

export type AlarmArea = keyof typeof alarmAreas;
export const alarmAreaNames = Object.keys(alarmAreas) as AlarmArea[];

/**
 * Which area each alarm is in. A route's area is its catalog tag's, unless the route is listed by
 * id; a worker's is the area of the queue it consumes; a pipeline task's is `pipeline`; the
 * stage-wide alarms go by what they watch. A new route tag or queue needs its line here: the synth
 * refuses a tag without one, and `QueueName` makes a missing queue a type error.
 */
export const alarmAreaMap = {
  routeTags: {
    system: 'api',
    account: 'api',
    admin: 'api',
    dashboard: 'api',
    console: 'api',
    couriers: 'intake',
    manifests: 'intake',
    storage: 'intake',
    documents: 'intake',
    deliveries: 'intake',
    customs: 'pipeline',
    // The broker's review of a processed batch recomputes its products with the pipeline's calculations.
    review: 'pipeline',
    webhooks: 'webhooks',
    events: 'webhooks',
    orders: 'orders',
  } as Record<string, AlarmArea>,
  /** Routes whose area is not their tag's: the shipping routes (lambdas/catalog/shipping.ts) are tagged `orders` but are the carriers'. */
  routes: Object.fromEntries(Object.values(shippingRoutes).map((r) => [r.id, 'carriers'])) as Record<string, AlarmArea>,
  queues: {
    manifestIntake: 'intake',
    manifestPipeline: 'pipeline',
    exchangeRateRetry: 'pipeline',
    webhookFanout: 'webhooks',
    webhookDelivery: 'webhooks',
    marketplaceSync: 'orders',
    orderViews: 'orders',
    trackingPoll: 'carriers',
  } satisfies Record<QueueName, AlarmArea>,
  /** The authorizer, the fallback and the API's own alarms. */
  edge: 'api',
  /** What every area stands on: the table, the account's concurrency, backups, the stacks' drift. */
  platform: 'api',
  /** The pipeline's tasks and its state machine's alarms. */
  pipeline: 'pipeline',
  /** The business alarms, by their target. */
  business: { webhooks: 'webhooks', orders: 'orders' } as Record<string, AlarmArea>,
} as const;

/** The area of a route, from its id and catalog tag; throws for a tag the table has no line for. */
export function routeArea(id: string, tag: string): AlarmArea {
  const area = alarmAreaMap.routes[id] ?? alarmAreaMap.routeTags[tag];
  if (!area) throw new Error(`Route ${id}: its tag ${JSON.stringify(tag)} has no alarm area; add it to alarmAreaMap.routeTags in lib/alarm-areas.ts`);
  return area;
}

/** CloudWatch's limits on a composite alarm's rule (PutCompositeAlarm): its length and the alarms it may name. */
export const compositeRuleLimits = { maxLength: 10_240, maxAlarms: 100 } as const;

/** `ALARM("a") OR ALARM("b")`: in alarm when any of the named alarms is. */
export function anyInAlarm(names: readonly string[]): string {
  if (names.length === 0) throw new Error('A composite alarm needs at least one alarm');
  return names.map((n) => `ALARM("${n}")`).join(' OR ');
}

/**
 * The names split into runs, in order, whose `anyInAlarm` rule each stays within the limits
 * (greedy: a run closes when the next name would break either).
 */
export function ruleChunks(names: readonly string[], limits: { maxLength: number; maxAlarms: number } = compositeRuleLimits): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let length = 0;
  for (const name of names) {
    const term = `ALARM("${name}")`.length;
    if (term > limits.maxLength) throw new Error(`Alarm name ${name} alone is longer than a composite rule may be`);
    const added = current.length === 0 ? term : term + ' OR '.length;
    if (current.length > 0 && (current.length + 1 > limits.maxAlarms || length + added > limits.maxLength)) {
      chunks.push(current);
      current = [];
      length = 0;
    }
    length += current.length === 0 ? term : term + ' OR '.length;
    current.push(name);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
