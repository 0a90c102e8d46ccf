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
  /** How long every function's, the API's and the state machine's log groups keep their logs: 30 days dev, 90 staging, 365 prod. */
  logRetention: RetentionDays;
  /**
   * X-Ray: active tracing on every function, and the Powertools tracer's
   * subsegments for each AWS SDK call (POWERTOOLS_TRACE_ENABLED). On in every stage by default
   * (`tracingByStage`); DESPACHO_TRACING=on|off at synth decides for the stage being built. The
   * state machine is traced whatever this says (cdk-nag's SF2 asks for it; its traces are few).
   */
  tracing: boolean;
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

/** Tracing per stage, unless DESPACHO_TRACING says otherwise at synth. */
export const tracingByStage: Record<StageName, boolean> = { dev: true, staging: true, prod: true };

/** DESPACHO_TRACING: unset or empty is the stage's default; otherwise `on` or `off`. */
export function parseTracing(value: string | undefined, stage: StageName): boolean {
  if (value === undefined || value.trim() === '') return tracingByStage[stage];
  const v = value.trim().toLowerCase();
  if (v === 'on' || v === 'off') return v === 'on';
  throw new Error(`DESPACHO_TRACING=${JSON.stringify(value)}: use on or off (default ${tracingByStage[stage] ? 'on' : 'off'} for ${stage}).`);
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
    logRetention: prod ? RetentionDays.ONE_YEAR : stage === 'staging' ? RetentionDays.THREE_MONTHS : RetentionDays.ONE_MONTH,
    tracing: parseTracing(env.DESPACHO_TRACING, stage),
    logLevel: stage === 'dev' ? 'DEBUG' : 'INFO',
    throttle: prod ? { rateLimit: 500, burstLimit: 1000 } : { rateLimit: 50, burstLimit: 100 },
    noncurrentVersionExpiration: Duration.days(prod ? 90 : 7),
    accessLogExpiration: Duration.days(prod ? 365 : 30),
  };
}
