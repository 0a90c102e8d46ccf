import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { defaultSyncEveryMinutes, syncScheduleOptions } from '../lambdas/core/orders/sync-schedule';

/** The deployable stages; each one is its own set of stacks with its own names. */
export const stages = ['dev', 'staging', 'prod'] as const;
export type StageName = (typeof stages)[number];

export function isStageName(value: unknown): value is StageName {
  return typeof value === 'string' && (stages as readonly string[]).includes(value);
}

/** Throws a clear error for anything that is not one of `stages`. */
export function parseStage(value: unknown): StageName {
  const given = value ?? 'dev';
  if (!isStageName(given)) {
    throw new Error(`Unknown stage ${JSON.stringify(given)}: use -c stage=<${stages.join('|')}> (default dev).`);
  }
  return given;
}

/** Everything that differs between stages, in one place. */
export interface StageSettings {
  stage: StageName;
  /** Prefix of stack names: `Despacho-<stage>`. */
  stackPrefix: string;
  /** Prefix of physical names (functions, schedule group): `despacho-<stage>`. */
  namePrefix: string;
  /** What happens to stateful resources (table, buckets) when the stack deletes them. */
  dataRemovalPolicy: RemovalPolicy;
  /** What happens to log groups when the stack deletes them. */
  logRemovalPolicy: RemovalPolicy;
  /** S3 object versioning on the files bucket. */
  versionedFiles: boolean;
  logRetention: RetentionDays;
  logLevel: 'DEBUG' | 'INFO' | 'WARN';
  /** Stage-wide HTTP API throttling (requests per second / burst). */
  throttle: { rateLimit: number; burstLimit: number };
  /** How long noncurrent file versions and access logs are kept. */
  noncurrentVersionExpiration: Duration;
  accessLogExpiration: Duration;
  /** The Bedrock model for tariff classification (DESPACHO_BEDROCK_MODEL_ID at synth); unset: the offline classifier. */
  bedrockModelId?: string;
  /**
   * Minutes between scheduled marketplace syncs (DESPACHO_ORDER_SYNC_EVERY_MINUTES at synth, one of
   * `syncScheduleOptions`; default 60). The schedule's cron and every function's
   * ORDER_SYNC_EVERY_MINUTES (which `next_scheduled_sync` is computed from) both come from it.
   */
  orderSyncEveryMinutes: number;
}

/** DESPACHO_ORDER_SYNC_EVERY_MINUTES: unset or empty is the default; anything else must be an allowed interval. */
export function parseOrderSyncEveryMinutes(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return defaultSyncEveryMinutes;
  const minutes = Number(value.trim());
  if (!(syncScheduleOptions as readonly number[]).includes(minutes)) {
    throw new Error(`DESPACHO_ORDER_SYNC_EVERY_MINUTES=${JSON.stringify(value)}: use one of ${syncScheduleOptions.join(', ')} (default ${defaultSyncEveryMinutes}).`);
  }
  return minutes;
}

export function stageSettings(stage: StageName, env: Record<string, string | undefined> = process.env): StageSettings {
  const prod = stage === 'prod';
  return {
    stage,
    stackPrefix: `Despacho-${stage}`,
    bedrockModelId: env.DESPACHO_BEDROCK_MODEL_ID || undefined,
    orderSyncEveryMinutes: parseOrderSyncEveryMinutes(env.DESPACHO_ORDER_SYNC_EVERY_MINUTES),
    namePrefix: `despacho-${stage}`,
    // prod keeps the table and the buckets when a stack is deleted or a resource replaced;
    // dev and staging are disposable (the table keeps point-in-time recovery on everywhere).
    dataRemovalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    logRemovalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    versionedFiles: prod,
    logRetention: prod ? RetentionDays.SIX_MONTHS : stage === 'staging' ? RetentionDays.ONE_MONTH : RetentionDays.ONE_WEEK,
    logLevel: stage === 'dev' ? 'DEBUG' : 'INFO',
    throttle: prod ? { rateLimit: 500, burstLimit: 1000 } : { rateLimit: 50, burstLimit: 100 },
    noncurrentVersionExpiration: Duration.days(prod ? 90 : 7),
    accessLogExpiration: Duration.days(prod ? 365 : 30),
  };
}
