import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, AssetStaging, Aws, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { signingSecretPurposes, type Access, type QueueName, type SigningSecretKind } from '#catalog/types';
import type { DataStack } from './data';
import { acknowledge, wildcardResourceFinding } from './nag';
import type { StageSettings } from './stage';
import { lambdaBundle, workerBundlingCommands } from './bundling';
import { BundleCache } from './bundle-cache';
import { prebundle } from './prebundle';
import { authorizer as authorizerDef, fallback as fallbackDef, pipelineTasks, routes as catalogRoutes, workers as catalogWorkers } from '#catalog';
import { liveAlias } from './rollout';

/** Repository root (lib/ sits directly under it). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What lib/ needs of a catalog route, worker, authorizer or fallback entry. */
export interface FunctionDef {
  id: string;
  /** A route's rate group: its function counts the token's window itself (http/kit/gate.ts). */
  rate?: string;
  /** Concurrent executions reserved for (and the most allowed to) the function; none by default. */
  reservedConcurrency?: number;
  /** Module under lambdas/ (no extension) exporting `handler`. */
  handler: string;
  description?: string;
  uses?: Access;
  timeoutSeconds?: number;
  memoryMb?: number;
}

export type FunctionKind = 'http' | 'worker';

export const defaults = {
  memoryMb: 256,
  timeoutSeconds: { http: 10, worker: 30 } satisfies Record<FunctionKind, number>,
};

/** `webhookDelivery` -> `QUEUE_URL_WEBHOOK_DELIVERY` (the name `config.queueUrl` reads). */
export function queueUrlVariable(name: string): string {
  return `QUEUE_URL_${name.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase()}`;
}

/** lib/bundling.ts in NodejsFunction's terms; esbuild runs locally, never in Docker. */
export const bundling = {
  format: OutputFormat.ESM,
  minify: lambdaBundle.minify,
  sourceMap: lambdaBundle.sourcemap,
  sourcesContent: lambdaBundle.sourcesContent,
  target: lambdaBundle.target,
  externalModules: [...lambdaBundle.external],
  mainFields: [...lambdaBundle.mainFields],
  banner: lambdaBundle.banner,
  esbuildArgs: Object.fromEntries(Object.entries(lambdaBundle.alias).map(([from, to]) => [`--alias:${from}`, resolve(projectRoot, to)])),
  forceDockerBundling: false,
  // The metafile tells the hook below which worker scripts the bundle needs; the hook removes it.
  metafile: true,
  commandHooks: {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => workerBundlingCommands(inputDir, outputDir),
  },
};

/** The bundles kept between synths (lib/bundle-cache.ts); `-c bundleCache=off` bundles every function again. */
let bundleCache: BundleCache | undefined;
function bundleCacheOf(scope: Construct): BundleCache | undefined {
  // Tests synthesize without bundling (test/support/cdk.ts): nothing to take from the cache nor keep.
  if (scope.node.tryGetContext('bundleCache') === 'off' || !Stack.of(scope).bundlingRequired) return undefined;
  if (!bundleCache) {
    const { commandHooks: _hooks, ...options } = bundling;
    bundleCache = new BundleCache(projectRoot, options);
    // Every catalog function at once, before the first is built (lib/prebundle.ts).
    const handlers = [...catalogRoutes, authorizerDef, fallbackDef, ...catalogWorkers, ...Object.values(pipelineTasks), { handler: 'http/smoke/receiver' }].map((d) => `lambdas/${d.handler}.ts`);
    const started = performance.now();
    const { built, reused } = prebundle(projectRoot, bundleCache, handlers);
    process.stderr.write(`Bundled ${built} function entries in one esbuild run (${((performance.now() - started) / 1000).toFixed(1)} s); ${reused} from the bundle cache\n`);
  }
  return bundleCache;
}

const relative = (entry: string) => entry.slice(projectRoot.length + 1).replaceAll('\\', '/');

/** The function's code: its bundle from the cache when nothing it is built from changed, else bundled now. */
function codeOf(scope: Construct, entry: string): { code: lambda.Code; handler: string } | { bundling: typeof bundling; handler: string } {
  const cache = bundleCacheOf(scope);
  const hit = cache?.hit(relative(entry));
  // Given code, NodejsFunction takes the handler as written: the bundle's file is index.mjs.
  if (hit) return { code: lambda.Code.fromAsset(hit), handler: 'index.handler' };
  if (!cache) return { bundling, handler: 'handler' };
  const keepMetaAt = cache.metaPath(relative(entry));
  return { handler: 'handler', bundling: { ...bundling, commandHooks: { ...bundling.commandHooks, afterBundling: (inputDir: string, outputDir: string) => workerBundlingCommands(inputDir, outputDir, keepMetaAt) } } };
}

/** Keeps a bundle just built in the cache (nothing when it came from there, or was not built: tests skip bundling). */
function storeBundle(fn: NodejsFunction, entry: string): void {
  const cache = bundleCacheOf(fn);
  if (!cache || !existsSync(cache.metaPath(relative(entry)))) return;
  const asset = fn.node.tryFindChild('Code');
  const staging = asset?.node.tryFindChild('Stage') as AssetStaging | undefined;
  if (staging && existsSync(join(staging.absoluteStagedPath, 'index.mjs'))) cache.store(relative(entry), staging.absoluteStagedPath);
}

export interface CatalogFunctionProps {
  def: FunctionDef;
  kind: FunctionKind;
  settings: StageSettings;
  data: DataStack;
  /** Extra environment (e.g. CORS_ORIGINS for HTTP handlers). */
  environment?: Record<string, string>;
}

/**
 * One catalog entry as a Lambda function: its own esbuild bundle, log group, role and exactly
 * the permissions its `uses` lists (written as explicit statements, never grant* helpers).
 */
export class CatalogFunction extends Construct {
  readonly fn: NodejsFunction;
  /**
   * The `live` alias on the function's current version: what every caller invokes (integrations,
   * the authorizer, event sources, the state machine), so a new version takes traffic only as
   * CodeDeploy shifts it (lib/rollout.ts).
   */
  readonly live: lambda.Alias;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: CatalogFunctionProps) {
    super(scope, id);
    const { def, kind, settings, data } = props;
    const uses = def.uses ?? {};
    const entry = join(projectRoot, 'lambdas', `${def.handler}.ts`);
    if (!existsSync(entry)) throw new Error(`Catalog entry ${def.id}: handler module lambdas/${def.handler}.ts does not exist`);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: settings.logRetention,
      removalPolicy: settings.logRemovalPolicy,
    });

    // An explicit role instead of the default one with AWSLambdaBasicExecutionRole (a managed
    // policy that may write to any log group): this role writes only to its own log group.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${settings.namePrefix}-${def.id}`,
    });
    this.logGroup.grantWrite(this.role);

    this.fn = new NodejsFunction(this, 'Function', {
      functionName: `${settings.namePrefix}-${def.id}`,
      description: def.description?.slice(0, 256),
      entry,
      projectRoot,
      depsLockFilePath: join(projectRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: def.memoryMb ?? defaults.memoryMb,
      reservedConcurrentExecutions: def.reservedConcurrency,
      timeout: Duration.seconds(def.timeoutSeconds ?? defaults.timeoutSeconds[kind]),
      tracing: settings.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      logGroup: this.logGroup,
      role: this.role,
      // SDK v3 keeps connections alive by itself; this flag only sets an SDK v2 variable.
      awsSdkConnectionReuse: false,
      environment: { ...environment(def, settings, data), ...props.environment },
      ...codeOf(this, entry),
    });
    storeBundle(this.fn, entry);

    this.live = new lambda.Alias(this, 'Live', { aliasName: liveAlias, version: this.fn.currentVersion });

    for (const statement of statements(this, uses, data)) this.role.addToPrincipalPolicy(statement);
    if (kind === 'http' && def.rate) {
      // The route's own rate window (http/kit/gate.ts): one UpdateItem (an atomic ADD, refused once a revocation closed the window), on the rate items' keys only (stored lower-cased: rate#<token>#<group>#<minute>).
      const tableArn = Stack.of(this).formatArn({ service: 'dynamodb', resource: 'table', resourceName: data.names.table });
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [tableArn], conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['rate#*'] } } }),
      );
    }

    if (settings.tracing) {
      acknowledge(
        this.role,
        'AwsSolutions-IAM5[Resource::*]',
        'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
      );
    }
  }
}

function environment(def: FunctionDef, settings: StageSettings, data: DataStack): Record<string, string> {
  const uses = def.uses ?? {};
  const env: Record<string, string> = {
    STAGE: settings.stage,
    TABLE_NAME: data.names.table,
    POWERTOOLS_SERVICE_NAME: 'despacho',
    // The Powertools tracer's SDK subsegments (lambdas/infra/tracing.ts), with the stage's tracing.
    POWERTOOLS_TRACE_ENABLED: String(settings.tracing),
    LOG_LEVEL: settings.logLevel,
    NODE_OPTIONS: lambdaBundle.nodeOptions,
    // The scheduled sync's interval, on every function: whichever handler reports
    // `next_scheduled_sync` (today GET /v1/orders/sync/status) computes it from the same number
    // the data stack's schedule was built from.
    ORDER_SYNC_EVERY_MINUTES: String(settings.orderSyncEveryMinutes),
  };
  if (uses.bucket?.some((b) => b.name === 'files') || uses.bucketOrigin) env.BUCKET_NAME = data.names.filesBucket;
  if (uses.bucket?.some((b) => b.name === 'proofs')) {
    env.PROOFS_BUCKET_NAME = data.names.proofsBucket;
    env.PROOF_RETENTION_YEARS = String(settings.config.proofRetentionYears);
  }
  if (uses.bus) env.EVENT_BUS_NAME = data.names.bus;
  for (const q of uses.queues ?? []) env[queueUrlVariable(q.name)] = queueOf(data, q.name, def.id).queue.queueUrl;
  if (uses.bedrock && settings.bedrockModelId) env.BEDROCK_MODEL_ID = settings.bedrockModelId;
  if (uses.secrets) env.MARKETPLACE_SECRET_PREFIX = data.names.secretPrefix;
  if (uses.signingSecrets) env.SIGNING_SECRETS_KEY_ARN = data.signingSecretsKey.keyArn;
  if (uses.cursors) env.CURSOR_KEY_SECRET_ARN = data.cursorKey.secretArn;
  if (uses.scheduler) {
    env.SCHEDULER_ROLE_ARN = data.schedulerRole.roleArn;
    env.SCHEDULER_GROUP = data.names.scheduleGroup;
  }
  return env;
}

function queueOf(data: DataStack, name: QueueName, id: string) {
  const q = data.queues[name];
  if (!q) throw new Error(`Catalog entry ${id} uses unknown queue ${name}`);
  return q;
}

/** Actions that may address a GSI (`<table>/index/<name>`); every other action is table-only. */
const indexActions = new Set(['Query', 'Scan']);

/**
 * Least privilege from `uses`: only the listed actions, on the named resources. Wildcard ARNs
 * are built from physical names (see dataNames) and their IAM5 findings acknowledged one by one.
 */
function statements(scope: CatalogFunction, uses: Access, data: DataStack): iam.PolicyStatement[] {
  const stack = Stack.of(scope);
  const out: iam.PolicyStatement[] = [];
  const wildcard = (resource: string, reason: string) => {
    acknowledge(scope.role, wildcardResourceFinding(scope, resource), reason);
    return resource;
  };

  if (uses.table?.length) {
    const tableArn = stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: data.names.table });
    const plain = uses.table.filter((a) => !indexActions.has(a));
    const indexed = uses.table.filter((a) => indexActions.has(a));
    if (plain.length) out.push(new iam.PolicyStatement({ actions: plain.map((a) => `dynamodb:${a}`), resources: [tableArn] }));
    if (indexed.length) {
      const indexArn = wildcard(`${tableArn}/index/*`, 'Query/Scan on the single table\'s GSIs; the table has only the GSIs of tableSchema.');
      out.push(new iam.PolicyStatement({ actions: indexed.map((a) => `dynamodb:${a}`), resources: [tableArn, indexArn] }));
    }
  }

  for (const b of uses.bucket ?? []) {
    const bucketArn = `arn:${Aws.PARTITION}:s3:::${b.name === 'proofs' ? data.names.proofsBucket : data.names.filesBucket}`;
    const objectActions = b.actions.filter((a) => a !== 'ListBucket');
    if (objectActions.length) {
      const objects = wildcard(`${bucketArn}/*`, `Object actions (${objectActions.join(', ')}) on keys of the ${b.name} bucket, which are per-record and not known in advance.`);
      out.push(new iam.PolicyStatement({ actions: objectActions.map((a) => `s3:${a}`), resources: [objects] }));
    }
    if (b.actions.includes('ListBucket')) out.push(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucketArn] }));
  }

  const queueArns = (uses.queues ?? []).filter((q) => q.actions.includes('SendMessage')).map((q) => queueOf(data, q.name, scope.node.id).queue.queueArn);
  if (queueArns.length) out.push(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: queueArns }));

  if (uses.bus) {
    const busArn = stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: data.names.bus });
    out.push(new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [busArn] }));
  }

  if (uses.scheduler) {
    const schedules = wildcard(
      stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${data.names.scheduleGroup}/*` }),
      'Durable timers are one-time schedules with generated names, confined to this stage\'s schedule group.',
    );
    out.push(new iam.PolicyStatement({ actions: ['scheduler:CreateSchedule'], resources: [schedules] }));
    out.push(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [data.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }
  if (uses.bedrock) {
    const models = wildcard(
      stack.formatArn({ service: 'bedrock', account: '', resource: 'foundation-model', resourceName: '*' }),
      'Tariff classification calls the foundation model the stage configures (BEDROCK_MODEL_ID); the model is chosen per deployment.',
    );
    out.push(new iam.PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [models] }));
  }

  if (uses.secrets) out.push(...secretStatements(scope, data, wildcard, uses.secrets));
  if (uses.signingSecrets) out.push(...signingSecretStatements(uses.signingSecrets, data));
  if (uses.cursors) out.push(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [data.cursorKey.secretArn] }));
  return out;
}

/**
 * The sealed signing secrets' grants (issue 31): `seal` is kms:Encrypt, `open` kms:Decrypt, on the
 * stage's signing-secrets key only, one statement per kind, conditioned on the encryption
 * context's `purpose` (lambdas/infra/sealed-secrets.ts), so a function that verifies X-Signature
 * cannot open a webhook secret. docs/operators/deploy.md (signing secrets).
 */
function signingSecretStatements(grants: NonNullable<Access['signingSecrets']>, data: DataStack): iam.PolicyStatement[] {
  return (Object.keys(grants) as SigningSecretKind[])
    .filter((kind) => grants[kind]?.length)
    .map(
      (kind) =>
        new iam.PolicyStatement({
          actions: [...new Set(grants[kind])].sort().map((a) => (a === 'seal' ? 'kms:Encrypt' : 'kms:Decrypt')),
          resources: [data.signingSecretsKey.keyArn],
          conditions: { StringEquals: { 'kms:EncryptionContext:purpose': signingSecretPurposes[kind] } },
        }),
    );
}

/** The tags CreateSecret puts on a marketplace secret (lambdas/infra/marketplace-credentials.ts). */
export const marketplaceSecretTagKeys = ['despacho:account', 'despacho:channel'] as const;

/**
 * The marketplace secrets' grants (`secrets: 'write'` or `'read'`): the calls the code makes, on
 * the stage's prefix only. What each call needs, what is not granted and why no kms: grant:
 * docs/operators/deploy.md (marketplace credentials).
 */
function secretStatements(scope: CatalogFunction, data: DataStack, wildcard: (resource: string, reason: string) => string, mode: 'read' | 'write'): iam.PolicyStatement[] {
  const secrets = wildcard(
    Stack.of(scope).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${data.names.secretPrefix}/marketplace/*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
    'Marketplace credentials are one secret per account and channel, created at run time under this stage\'s prefix; secret ARNs also end in a random suffix.',
  );
  // `read` (the sync worker): get only.
  if (mode === 'read') return [new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secrets] })];
  return [
    new iam.PolicyStatement({
      actions: ['secretsmanager:GetSecretValue', 'secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue', 'secretsmanager:DeleteSecret', 'secretsmanager:RestoreSecret'],
      resources: [secrets],
    }),
    // CreateSecret's tags are authorized as TagResource; only the two tags the code writes.
    new iam.PolicyStatement({
      actions: ['secretsmanager:TagResource'],
      resources: [secrets],
      conditions: { 'ForAllValues:StringEquals': { 'aws:TagKeys': [...marketplaceSecretTagKeys] } },
    }),
  ];
}
