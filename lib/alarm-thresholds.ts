import type { QueueName } from '#catalog/types';

/**
 * Every alarm threshold of a stage, as data (docs/operators/operating.md, explains each alarm and what to do
 * when it fires). lib/observability.ts reads these; a threshold changes here and nowhere else.
 * Every alarm looks at `periodMinutes`-long periods and fires on `evaluationPeriods` of them in a row;
 * missing data (no traffic) is never a breach.
 */
export const alarmThresholds = {
  periodMinutes: 5,
  evaluationPeriods: 1,
  api: {
    /** Percent of the API's requests answered 5xx in a period (only with at least `minRequests`). */
    serverErrorPercent: 1,
    minRequests: 20,
    /** p99 of the API's latency in a period, milliseconds. */
    p99LatencyMs: 3000,
  },
  functions: {
    /** Errors (uncaught exceptions, timeouts, crashes) of one function in a period. */
    errors: 1,
    /** Throttled invocations of one function in a period. */
    throttles: 1,
    /** The longest invocation in a period, as a fraction of the function's timeout. */
    durationOfTimeout: 0.8,
  },
  queues: {
    /** Messages in a dead-letter queue (any is an alarm). */
    deadLetterMessages: 1,
    /** Age of the oldest message of each queue, seconds: a backlog or a stuck consumer. */
    oldestMessageSeconds: {
      webhookFanout: 300,
      // Retries wait in the queue up to 15 min (SQS delays); longer waits are Scheduler timers.
      webhookDelivery: 1800,
      // One sync may run 15 min; the scheduled tick queues one per connected account.
      marketplaceSync: 3600,
      // The first change after a snapshot asks for the next one in 5 min (an SQS delay, not age);
      // a snapshot takes seconds, a minute at 100,000 orders.
      orderViews: 600,
      // The scheduled poll queues a page of watched shipments at a time; each page runs in minutes.
      trackingPoll: 900,
      manifestPipeline: 300,
      // One tick an hour, done in seconds (the BCRA asked once per waiting day, 5 s at most each).
      exchangeRateRetry: 900,
      // Intake writes two manifests at a time, up to 15 min each.
      manifestIntake: 1800,
    } satisfies Record<QueueName, number>,
  },
  pipeline: {
    /** Manifest pipeline runs that failed (a manifest marked failed) in a period. */
    executionsFailed: 1,
    /** Runs that hit the state machine's 6 h timeout in a period. */
    executionsTimedOut: 1,
  },
  /** What every area stands on (the api area): the table, the account's Lambda concurrency, backups, the stacks. */
  platform: {
    /** Table requests DynamoDB throttled in a period (the SDK retries a few; more is a hot key or a limit reached). */
    dynamodbThrottledRequests: 10,
    /** Requests DynamoDB failed with a 500 of its own in a period. */
    dynamodbSystemErrors: 1,
    /** Share of the account's Lambda concurrency quota claimed (reserved + in use), highest minute of a period. */
    accountConcurrencyOfQuota: 0.8,
    /** Backup or copy jobs that failed, were aborted or expired, in a period. */
    backupJobsFailed: 1,
    /** Drift detections that found a stack of the stage DRIFTED, in a period. */
    stacksDrifted: 1,
  },
  /** CloudFront and its web ACL (us-east-1, lib/edge-watch.ts). */
  edge: {
    /** CloudFront's share of responses that were 5xx (its own and the origin's), percent, with `minRequests` or more. */
    cloudFront5xxPercent: 1,
    minRequests: 20,
    /** Requests one rule of the web ACL blocked (or, for a managed rule group in count mode, would have) in a period: a flood or a false positive. */
    wafRuleMatches: 100,
  },
  business: {
    /** Webhook subscriptions disabled after consecutive failures, in a period. */
    webhookSubscriptionsDisabled: 1,
    /** Marketplace syncs (one account, one channel) that ended in error, in a period. */
    marketplaceSyncErrors: 1,
  },
} as const;
