import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { defaultSyncEveryMinutes, syncScheduleOptions } from '#core/orders/sync-schedule';
import { stageConfigs, stageNames, type StageConfig, type StageName } from './stages';

export { type StageConfig, type StageName } from './stages';

/** The deployable stages; each one is its own set of stacks with its own names. */
export const stages = stageNames;

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

/** The keys a stage's configuration takes, each also a `-c key=value` flag. `alarmEmail` is `alarmEmails`' one-address spelling. */
export const configKeys = [
  'account',
  'region',
  'domainName',
  'certificateArn',
  'hostedZoneId',
  'hostedZoneName',
  'corsOrigins',
  'alarmEmails',
  'alarmEmail',
  'alarmTopicArn',
  'logRetentionDays',
  'tracing',
  'tracingSampleRate',
  'edgeProtection',
  'originClientCertificateArn',
  'originTruststoreUri',
  'reservedConcurrency',
  'wafManagedRules',
  'rollout',
  'smokeReceiver',
  'docsBaseUrl',
  'alarmHttpsEndpoints',
  'accountConcurrencyQuota',
  'backupCopyVaultArn',
  'backupCopyRetentionDays',
  'budgetMonthlyUsd',
  'budgetEmails',
  'proofRetentionYears',
] as const;
export type ConfigKey = (typeof configKeys)[number];

/** What may override the file: `-c` values (strings) or typed values (tests, other tools). */
export type StageOverrides = Partial<Record<ConfigKey, unknown>>;

/** Every problem of a stage's configuration at once, so one synth names all that is missing. */
export class StageConfigError extends Error {
  constructor(
    readonly stage: StageName,
    readonly problems: string[],
  ) {
    super(`stage ${stage} cannot synthesize:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'StageConfigError';
  }
}

const allowedRetentionDays = Object.values(RetentionDays).filter((v): v is number => typeof v === 'number' && v > 0);

const unset = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter(Boolean);

function flag(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  const s = String(v).trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(s)) return true;
  if (['off', 'false', '0', 'no'].includes(s)) return false;
  return undefined;
}

/**
 * The stage's configuration: lib/stages.ts, then DESPACHO_TRACING from the environment (as
 * before), then the overrides (`-c key=value`). Checks every value and the stage's own rules
 * (prod: account, region, an alarm subscriber and CORS origins other than `*`) and throws one
 * StageConfigError naming every problem.
 */
export function resolveStageConfig(stage: StageName, overrides: StageOverrides = {}, env: Record<string, string | undefined> = process.env): StageConfig {
  const base = stageConfigs[stage];
  const problems: string[] = [];
  const c: StageConfig = { ...base, corsOrigins: [...base.corsOrigins], alarmEmails: [...base.alarmEmails], alarmHttpsEndpoints: [...base.alarmHttpsEndpoints], budgetEmails: [...base.budgetEmails] };
  if (!unset(env.DESPACHO_TRACING)) {
    const t = flag(env.DESPACHO_TRACING);
    if (t === undefined || !['on', 'off'].includes(String(env.DESPACHO_TRACING).trim().toLowerCase())) problems.push(`DESPACHO_TRACING=${JSON.stringify(env.DESPACHO_TRACING)}: use on or off`);
    else c.tracing = t;
  }
  const o = Object.fromEntries(Object.entries(overrides).filter(([, v]) => !unset(v))) as StageOverrides;

  if (o.account !== undefined) c.account = String(o.account).trim();
  if (c.account !== undefined && !/^\d{12}$/.test(c.account)) problems.push(`account ${JSON.stringify(c.account)}: an AWS account id is 12 digits`);
  if (o.region !== undefined) c.region = String(o.region).trim();
  if (c.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(c.region)) problems.push(`region ${JSON.stringify(c.region)}: not an AWS region name (e.g. sa-east-1)`);

  if (o.domainName !== undefined) c.domainName = String(o.domainName).trim().toLowerCase();
  if (c.domainName !== undefined && (c.domainName.length > 253 || !/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(c.domainName))) {
    problems.push(`domainName ${JSON.stringify(c.domainName)}: not a host name (api.example.com)`);
  }
  if (o.certificateArn !== undefined) c.certificateArn = String(o.certificateArn).trim();
  if (o.hostedZoneId !== undefined) c.hostedZoneId = String(o.hostedZoneId).trim();
  if (o.hostedZoneName !== undefined) c.hostedZoneName = String(o.hostedZoneName).trim().replace(/\.$/, '').toLowerCase();

  if (o.corsOrigins !== undefined) c.corsOrigins = list(o.corsOrigins);
  for (const origin of c.corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) problems.push(`corsOrigins: ${JSON.stringify(origin)} is not an origin (scheme://host[:port]) or '*'`);
  }
  if (o.alarmEmails !== undefined) c.alarmEmails = list(o.alarmEmails);
  if (o.alarmEmail !== undefined) c.alarmEmails = [...new Set([...c.alarmEmails, ...list(o.alarmEmail)])];
  for (const email of c.alarmEmails) {
    if (!/^[^@\s,;]+@[^@\s,;]+\.[^@\s,;]+$/.test(email) || email.length > 254) problems.push(`alarmEmail: ${JSON.stringify(email)} is not an e-mail address`);
  }
  if (o.alarmTopicArn !== undefined) c.alarmTopicArn = String(o.alarmTopicArn).trim();
  if (c.alarmTopicArn !== undefined && !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(c.alarmTopicArn)) problems.push(`alarmTopicArn ${JSON.stringify(c.alarmTopicArn)}: not an SNS topic ARN`);

  if (o.logRetentionDays !== undefined) c.logRetentionDays = Number(o.logRetentionDays);
  if (!allowedRetentionDays.includes(c.logRetentionDays)) problems.push(`logRetentionDays ${JSON.stringify(c.logRetentionDays)}: use one of ${allowedRetentionDays.join(', ')}`);
  if (o.tracing !== undefined) {
    const t = flag(o.tracing);
    if (t === undefined) problems.push(`tracing ${JSON.stringify(o.tracing)}: use on or off`);
    else c.tracing = t;
  }
  if (o.tracingSampleRate !== undefined) c.tracingSampleRate = Number(o.tracingSampleRate);
  if (!(c.tracingSampleRate >= 0 && c.tracingSampleRate <= 1)) problems.push(`tracingSampleRate ${JSON.stringify(o.tracingSampleRate ?? c.tracingSampleRate)}: a share from 0 to 1`);
  if (o.edgeProtection !== undefined) {
    const e = flag(o.edgeProtection);
    if (e === undefined) problems.push(`edgeProtection ${JSON.stringify(o.edgeProtection)}: use on or off`);
    else c.edgeProtection = e;
  }
  if (o.originClientCertificateArn !== undefined) c.originClientCertificateArn = String(o.originClientCertificateArn).trim();
  if (c.originClientCertificateArn !== undefined) {
    const m = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[0-9a-f-]{36}$/.exec(c.originClientCertificateArn);
    if (!m) problems.push(`originClientCertificateArn ${JSON.stringify(c.originClientCertificateArn)}: not an ACM certificate ARN`);
    else if (m[1] !== 'us-east-1') problems.push(`originClientCertificateArn: CloudFront reads its origin client certificate in us-east-1 only, this one is in ${m[1]}`);
  }
  if (o.originTruststoreUri !== undefined) c.originTruststoreUri = String(o.originTruststoreUri).trim();
  if (c.originTruststoreUri !== undefined && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/\S+$/.test(c.originTruststoreUri)) {
    problems.push(`originTruststoreUri ${JSON.stringify(c.originTruststoreUri)}: not s3://<bucket>/<key> of a PEM truststore`);
  }
  if (o.reservedConcurrency !== undefined) {
    const r = flag(o.reservedConcurrency);
    if (r === undefined) problems.push(`reservedConcurrency ${JSON.stringify(o.reservedConcurrency)}: use on or off`);
    else c.reservedConcurrency = r;
  }

  if (o.wafManagedRules !== undefined) {
    const w = String(o.wafManagedRules).trim().toLowerCase();
    if (w !== 'count' && w !== 'block') problems.push(`wafManagedRules ${JSON.stringify(o.wafManagedRules)}: use count or block`);
    else c.wafManagedRules = w;
  }
  if (o.rollout !== undefined) {
    const r = String(o.rollout).trim().toLowerCase();
    if (r !== 'canary' && r !== 'all-at-once') problems.push(`rollout ${JSON.stringify(o.rollout)}: use canary or all-at-once`);
    else c.rollout = r;
  }
  if (o.smokeReceiver !== undefined) {
    const r = flag(o.smokeReceiver);
    if (r === undefined) problems.push(`smokeReceiver ${JSON.stringify(o.smokeReceiver)}: use on or off`);
    else c.smokeReceiver = r;
  }
  if (o.docsBaseUrl !== undefined) c.docsBaseUrl = String(o.docsBaseUrl).trim();
  else if (c.docsBaseUrl === undefined && !unset(env.GITHUB_REPOSITORY)) c.docsBaseUrl = `${env.GITHUB_SERVER_URL || 'https://github.com'}/${env.GITHUB_REPOSITORY}/blob/main/docs/operators/`;
  if (c.docsBaseUrl !== undefined) {
    if (!c.docsBaseUrl.endsWith('/')) c.docsBaseUrl += '/';
    if (!/^https:\/\/[^/\s]+\/\S*$/.test(c.docsBaseUrl)) problems.push(`docsBaseUrl ${JSON.stringify(c.docsBaseUrl)}: an https URL of the docs/operators/ folder`);
  }
  if (o.alarmHttpsEndpoints !== undefined) c.alarmHttpsEndpoints = list(o.alarmHttpsEndpoints);
  for (const url of c.alarmHttpsEndpoints) {
    if (!/^https:\/\/[^/\s]+(\/\S*)?$/.test(url)) problems.push(`alarmHttpsEndpoints: ${JSON.stringify(url)} is not an https URL`);
  }
  if (o.accountConcurrencyQuota !== undefined) c.accountConcurrencyQuota = Number(o.accountConcurrencyQuota);
  if (!(Number.isInteger(c.accountConcurrencyQuota) && c.accountConcurrencyQuota >= 10)) problems.push(`accountConcurrencyQuota ${JSON.stringify(o.accountConcurrencyQuota ?? c.accountConcurrencyQuota)}: the account's Lambda concurrency quota, a whole number from 10`);
  if (o.backupCopyVaultArn !== undefined) c.backupCopyVaultArn = String(o.backupCopyVaultArn).trim();
  if (c.backupCopyVaultArn !== undefined) {
    const m = /^arn:aws[a-z-]*:backup:([a-z0-9-]+):(\d{12}):backup-vault:[A-Za-z0-9_.-]{2,50}$/.exec(c.backupCopyVaultArn);
    if (!m) problems.push(`backupCopyVaultArn ${JSON.stringify(c.backupCopyVaultArn)}: not an AWS Backup vault ARN`);
    else if (c.region && c.account && m[1] === c.region && m[2] === c.account) problems.push(`backupCopyVaultArn: the copy must leave the stage's region or account (${c.region}, ${c.account})`);
  }
  if (o.backupCopyRetentionDays !== undefined) c.backupCopyRetentionDays = Number(o.backupCopyRetentionDays);
  if (!(Number.isInteger(c.backupCopyRetentionDays) && c.backupCopyRetentionDays >= 1)) problems.push(`backupCopyRetentionDays ${JSON.stringify(o.backupCopyRetentionDays ?? c.backupCopyRetentionDays)}: whole days, 1 or more`);
  if (o.budgetMonthlyUsd !== undefined) c.budgetMonthlyUsd = Number(o.budgetMonthlyUsd);
  if (c.budgetMonthlyUsd !== undefined && !(Number.isFinite(c.budgetMonthlyUsd) && c.budgetMonthlyUsd > 0)) problems.push(`budgetMonthlyUsd ${JSON.stringify(o.budgetMonthlyUsd ?? c.budgetMonthlyUsd)}: an amount in USD above 0`);
  if (o.budgetEmails !== undefined) c.budgetEmails = list(o.budgetEmails);
  for (const email of c.budgetEmails) {
    if (!/^[^@\s,;]+@[^@\s,;]+\.[^@\s,;]+$/.test(email) || email.length > 254) problems.push(`budgetEmails: ${JSON.stringify(email)} is not an e-mail address`);
  }
  if (o.proofRetentionYears !== undefined) c.proofRetentionYears = Number(o.proofRetentionYears);
  if (!(Number.isInteger(c.proofRetentionYears) && c.proofRetentionYears >= 1 && c.proofRetentionYears <= 100)) problems.push(`proofRetentionYears ${JSON.stringify(o.proofRetentionYears ?? c.proofRetentionYears)}: whole years from 1 to 100 (the norm asks for 5)`);
  if (c.budgetEmails.length > 10) problems.push('budgetEmails: AWS Budgets e-mails at most 10 addresses a notification');

  // Rules between settings.
  if ((c.hostedZoneId === undefined) !== (c.hostedZoneName === undefined)) problems.push('hostedZoneId and hostedZoneName go together');
  if ((c.certificateArn || c.hostedZoneId) && !c.domainName) problems.push('certificateArn and hostedZoneId need domainName');
  if (c.domainName && c.hostedZoneName && c.domainName !== c.hostedZoneName && !c.domainName.endsWith(`.${c.hostedZoneName}`)) problems.push(`domainName ${c.domainName} is not in the hosted zone ${c.hostedZoneName}`);
  if (c.certificateArn !== undefined) {
    const m = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[0-9a-f-]{36}$/.exec(c.certificateArn);
    if (!m) problems.push(`certificateArn ${JSON.stringify(c.certificateArn)}: not an ACM certificate ARN`);
    else if (c.edgeProtection && m[1] !== 'us-east-1') problems.push(`certificateArn: CloudFront (edgeProtection on) reads certificates in us-east-1 only, this one is in ${m[1]}`);
    else if (!c.edgeProtection && c.region && m[1] !== c.region) problems.push(`certificateArn: the API's custom domain needs a certificate in ${c.region}, this one is in ${m[1]}`);
  }
  // CloudFront's web ACL and certificate live in us-east-1, referenced across regions: both need a known account and region.
  // staging is prod (issue 43): the same requirements, so the pipeline proves prod's settings on it first.
  const productionLike = isProductionLike(stage);
  const missing: string[] = [];
  if (c.edgeProtection || productionLike) {
    if (!c.account) missing.push('account (-c account=<12 digits>)');
    if (!c.region) missing.push('region (-c region=<e.g. sa-east-1>)');
  }
  // With the edge on, CloudFront is the only way in: the API's origin domain takes its client certificate only.
  if (c.edgeProtection) {
    if (!c.domainName) missing.push('domainName (-c domainName=<api.example.com>)');
    if (!c.originClientCertificateArn) missing.push('originClientCertificateArn (-c originClientCertificateArn=<ACM certificate ARN in us-east-1>)');
    if (!c.originTruststoreUri) missing.push('originTruststoreUri (-c originTruststoreUri=s3://<bucket>/<key>)');
  }
  if (productionLike) {
    if (c.alarmEmails.length === 0 && !c.alarmTopicArn) missing.push('an alarm subscriber (-c alarmEmail=<address> or -c alarmTopicArn=<SNS topic ARN>)');
    if (c.corsOrigins.length === 0) missing.push('corsOrigins (-c corsOrigins=https://console.example.com[,...])');
    else if (c.corsOrigins.includes('*')) problems.push(`corsOrigins: ${stage} refuses '*'; name the origins that may call the API`);
    // No deploy of staging or prod waits on someone adding a DNS record: the certificates are
    // validated in a hosted zone the stage names, or the public one is given issued.
    if (c.domainName && c.hostedZoneId === undefined) {
      if (c.edgeProtection) missing.push(`hostedZoneId and hostedZoneName (the zone of ${c.domainName}: the origin domain's certificate is validated in it, so the deploy waits on no DNS record)`);
      else if (c.certificateArn === undefined) missing.push(`hostedZoneId and hostedZoneName, or certificateArn (an issued certificate for ${c.domainName}), so the deploy waits on no DNS record`);
    }
  }
  if (missing.length) problems.unshift(`missing ${missing.join(', ')}${c.edgeProtection && !productionLike ? ' (edgeProtection needs them)' : ''}`);
  if (problems.length) throw new StageConfigError(stage, problems);
  return c;
}

/** Everything that differs between stages, in one place. */
export interface StageSettings {
  stage: StageName;
  /** The stage's configuration (lib/stages.ts with its -c overrides), checked. */
  config: StageConfig;
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
  /** How long every function's, the API's and the state machine's log groups keep their logs (config.logRetentionDays: 30 days dev, 90 staging, 365 prod). */
  logRetention: RetentionDays;
  /**
   * X-Ray: active tracing on every function, and the Powertools tracer's
   * subsegments for each AWS SDK call (POWERTOOLS_TRACE_ENABLED). On in every stage by default
   * (lib/stages.ts); DESPACHO_TRACING=on|off at synth or -c tracing=on|off decides for the stage being built. The
   * state machine is traced whatever this says (cdk-nag's SF2 asks for it; its traces are few).
   */
  tracing: boolean;
  logLevel: 'DEBUG' | 'INFO' | 'WARN';
  /** Stage-wide HTTP API throttling (requests per second / burst): each route's default. */
  throttle: { rateLimit: number; burstLimit: number };
  /**
   * The tighter limit of each public route and of `$default` (route settings on the stage): what
   * no caller identity gates cannot spend the throttle of the routes partners use.
   */
  publicRouteThrottle: { rateLimit: number; burstLimit: number };
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

/** DESPACHO_TRACING: unset or empty is the stage's default (lib/stages.ts); otherwise `on` or `off`. */
export function parseTracing(value: string | undefined, stage: StageName): boolean {
  if (value === undefined || value.trim() === '') return stageConfigs[stage].tracing;
  const v = value.trim().toLowerCase();
  if (v === 'on' || v === 'off') return v === 'on';
  throw new Error(`DESPACHO_TRACING=${JSON.stringify(value)}: use on or off (default ${stageConfigs[stage].tracing ? 'on' : 'off'} for ${stage}).`);
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

/**
 * Whether a stage runs with prod's settings: prod, and staging, which the pipeline deploys and
 * smoke-tests before it offers prod (issue 43). What staging keeps of its own: its data and logs
 * go with its stacks (DESTROY, no deletion or termination protection), so it can be torn down and
 * built again; everything that decides how the service behaves is prod's.
 */
export function isProductionLike(stage: StageName): boolean {
  return stage === 'prod' || stage === 'staging';
}

/**
 * The settings a stage is built with. `overrides` are the `-c` values; a stage whose file entry and
 * overrides lack what it requires (staging and prod: account, region, alarm subscriber, CORS
 * origins, a certificate that waits on no DNS record) throws StageConfigError naming all of it.
 */
export function stageSettings(stage: StageName, env: Record<string, string | undefined> = process.env, overrides: StageOverrides = {}): StageSettings {
  const prod = stage === 'prod';
  const productionLike = isProductionLike(stage);
  const config = resolveStageConfig(stage, overrides, env);
  return {
    stage,
    config,
    stackPrefix: `Despacho-${stage}`,
    bedrockModelId: env.DESPACHO_BEDROCK_MODEL_ID || undefined,
    orderSyncEveryMinutes: parseOrderSyncEveryMinutes(env.DESPACHO_ORDER_SYNC_EVERY_MINUTES),
    namePrefix: `despacho-${stage}`,
    // prod keeps the table and the buckets when a stack is deleted or a resource replaced;
    // dev and staging are disposable (the table keeps point-in-time recovery on everywhere).
    dataRemovalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    logRemovalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    versionedFiles: productionLike,
    logRetention: config.logRetentionDays as RetentionDays,
    tracing: config.tracing,
    logLevel: stage === 'dev' ? 'DEBUG' : 'INFO',
    throttle: productionLike ? { rateLimit: 500, burstLimit: 1000 } : { rateLimit: 50, burstLimit: 100 },
    publicRouteThrottle: productionLike ? { rateLimit: 50, burstLimit: 100 } : { rateLimit: 10, burstLimit: 20 },
    noncurrentVersionExpiration: Duration.days(productionLike ? 90 : 7),
    accessLogExpiration: Duration.days(productionLike ? 365 : 30),
  };
}
