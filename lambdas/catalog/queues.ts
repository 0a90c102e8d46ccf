export interface QueueDef {
  /** Seconds a message stays hidden while a worker holds it. */
  visibilityTimeoutSeconds: number;
  /** Deliveries before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
}

/** SQS queues (each with its dead-letter queue) that workers consume. */
export const queues = {
  webhookFanout: { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  webhookDelivery: { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  marketplaceSync: { visibilityTimeoutSeconds: 900, maxReceiveCount: 3 },
  /** An account's order snapshot brought up to its version (services/orders/list-view.ts): seconds, a minute at 100,000 orders. */
  orderViews: { visibilityTimeoutSeconds: 180, maxReceiveCount: 5 },
  /** The scheduled tracking poll of external carriers' shipments (issue 18), a page per message. */
  trackingPoll: { visibilityTimeoutSeconds: 300, maxReceiveCount: 3 },
  manifestPipeline: { visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  /** The scheduled retry of missing exchange rates (issue 44): one tick, the BCRA asked once per waiting day. */
  exchangeRateRetry: { visibilityTimeoutSeconds: 180, maxReceiveCount: 3 },
  /** Writing an accepted manifest's items: up to ~15,000 items a payload, minutes at worst. */
  manifestIntake: { visibilityTimeoutSeconds: 900, maxReceiveCount: 5 },
} as const satisfies Record<string, QueueDef>;
