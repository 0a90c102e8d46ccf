/**
 * `npm run cost -- --stage prod --profile small`: what a synthesized stage costs a month at a
 * stated volume, by service, from the templates `cdk synth` wrote (cdk.out: the stage's stacks and
 * their nested stacks) and the public prices in scripts/cost-prices.json.
 *
 * Counts come from the templates: functions with their memory and architecture, the authorizer's
 * cache, the event source mappings and the queues they read, the schedules and their cron, the
 * state machine's type and the states a manifest goes through, alarms (standard, high resolution,
 * composite), dashboards, log retention and levels, tracing, KMS keys, WAF web ACLs and their rules,
 * CloudFront distributions, hosted zones, the table's billing mode, point-in-time recovery and
 * backup plans, buckets. What the volume makes of them (invocations per kind, their durations,
 * read and write units per operation, bytes stored and logged) is in `assumptions` below, printed
 * with every estimate. A resource type the script does not know is listed as not priced, never
 * left out silently.
 *
 *   npx cdk synth -c stage=prod ...            # writes cdk.out
 *   npm run cost -- --stage prod --profile large [--price-region sa-east-1] [--json]
 *   npm run cost -- --stage prod --requests-per-day 50000 --manifests-per-day 40 --items-per-manifest 800
 */
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { metrics as metricDefs } from '#shared/metric-names';

// ---------------------------------------------------------------------------------------------
// Prices

export interface PriceEntry {
  unit: string;
  usd: Record<string, number>;
  source: string;
  checked?: string;
  assumed?: Record<string, string>;
}
export interface PriceBook {
  about: string;
  read: string;
  regions: Record<string, string>;
  prices: Record<string, PriceEntry>;
}
export const pricesFile = fileURLToPath(new URL('./cost-prices.json', import.meta.url));
export const priceBook: PriceBook = JSON.parse(readFileSync(pricesFile, 'utf8'));

// ---------------------------------------------------------------------------------------------
// Volume and assumptions

export interface Volume {
  requestsPerDay: number;
  manifestsPerDay: number;
  itemsPerManifest: number;
  webhookDeliveriesPerDay: number;
  /** Storage (table, bucket, backups) is priced as it stands after this many months at this volume. */
  monthsOfData: number;
}

export const profiles: Record<'small' | 'large', Volume & { summary: string }> = {
  small: {
    summary: 'one broker and a few partners: 20,000 API requests, 20 manifests of 500 items (10,000 items) and 2,000 webhook deliveries a day',
    requestsPerDay: 20_000,
    manifestsPerDay: 20,
    itemsPerManifest: 500,
    webhookDeliveriesPerDay: 2_000,
    monthsOfData: 12,
  },
  large: {
    summary: 'a busy season: 2,000,000 API requests, 400 manifests of 2,500 items (1,000,000 items) and 200,000 webhook deliveries a day',
    requestsPerDay: 2_000_000,
    manifestsPerDay: 400,
    itemsPerManifest: 2_500,
    webhookDeliveriesPerDay: 200_000,
    monthsOfData: 12,
  },
};

/** What the volume makes of the resources: stated, not measured in AWS (no stage has run there yet). */
export const assumptions = {
  daysPerMonth: { value: 30, says: 'days in a month' },
  routeMs: { value: 80, says: 'ms per API route invocation (average over the routes; requests spread evenly over the route functions)' },
  authorizerMs: { value: 30, says: 'ms per authorizer invocation' },
  authorizerCacheHitShare: { value: 0.9, says: 'share of requests answered from the authorizer cache when the template gives it a TTL (0 when AuthorizerResultTtlInSeconds is 0)' },
  authorizerRru: { value: 1, says: 'read units per authorizer invocation (the token)' },
  authorizerWru: { value: 1, says: "write units per authorizer invocation (the token's last use, at most once a minute)" },
  rateWru: { value: 1, says: "write units per API request for the token's rate window (counted by the route's function on every request)" },
  routeRru: { value: 2, says: 'read units per API request (average)' },
  routeWru: { value: 0.5, says: 'write units per API request (average)' },
  responseKb: { value: 2, says: 'KB per API response sent to the client' },
  intakeMsBase: { value: 300, says: 'ms per intake worker invocation, plus intakeMsPerItem per item' },
  intakeMsPerItem: { value: 0.5, says: 'ms per item of the intake worker' },
  workerMs: { value: 200, says: 'ms per invocation of the pipeline-start and webhook fan-out workers' },
  deliveryMs: { value: 400, says: 'ms per webhook delivery (an HTTPS call to the partner)' },
  scheduledMs: { value: 3000, says: 'ms per scheduled worker run (marketplace sync, tracking poll)' },
  pipelineTaskMs: { value: 1000, says: 'ms per pipeline task run once per manifest (prepare, the stages\' close, finish)' },
  pipelinePageMs: { value: 1500, says: 'ms per pipeline page task (one stage over one page)' },
  pageSize: { value: 500, says: 'items per pipeline page (lambdas/core/pipeline: pages of 500 that never split a shipment)' },
  deliveriesPerEvent: { value: 1, says: 'webhook deliveries per domain event fanned out (one subscriber each)' },
  deliveryRetryShare: { value: 0.05, says: 'extra delivery attempts per delivery (retries)' },
  eventsPerManifest: { value: 6, says: 'EventBridge events per manifest (submitted, processing events, total_due ...)' },
  itemWru: { value: 3, says: 'write units per manifest item (the item with its index entries, and the quota ledger\'s conditional write)' },
  itemRru: { value: 1, says: 'read units per manifest item' },
  manifestWru: { value: 30, says: 'write units per manifest besides its items (batch, run, stages, idempotency)' },
  manifestRru: { value: 30, says: 'read units per manifest besides its items' },
  deliveryWru: { value: 2, says: 'write units per webhook delivery (attempt log, subscription health)' },
  deliveryRru: { value: 2, says: 'read units per webhook delivery' },
  itemKbStored: { value: 1.5, says: 'KB of table storage per item kept (item and index entries)' },
  s3KbPerItem: { value: 7, says: 'KB in the files bucket per item (upload, pages, results, the JSON, CSV and xlsx downloads)' },
  s3PutsPerPage: { value: 6, says: 'S3 PUTs per pipeline page (the stages\' outputs, results parts)' },
  s3GetsPerPage: { value: 10, says: 'S3 GETs per pipeline page' },
  s3RequestsPerManifest: { value: 20, says: 'S3 PUTs and as many GETs per manifest besides its pages (upload, downloads, index)' },
  downloadKbPerItem: { value: 1.9, says: 'KB per item downloaded once per manifest (the JSON results)' },
  sqsRequestsPerMessage: { value: 3, says: 'SQS requests per message (send, receive, delete)' },
  sqsIdlePollsPerMappingMonth: { value: 5 * (86_400 / 20) * 30, says: 'empty receives per event source mapping a month (Lambda\'s 5 pollers, 20 s long polls)' },
  logBytesPerInvocation: { value: 600, says: 'log bytes per invocation at INFO (the platform\'s START/END/REPORT lines and one line of the function); x4 at DEBUG' },
  accessLogBytes: { value: 600, says: 'bytes per API access log line' },
  stateLogBytes: { value: 400, says: 'bytes per state machine log event at level ALL (two per transition)' },
  logCompression: { value: 0.15, says: 'stored size of a log byte once CloudWatch compresses it' },
  xrayRetrievedShare: { value: 0.1, says: 'share of recorded traces retrieved or scanned' },
  kmsRequestsPerDelivery: { value: 1, says: 'KMS requests per webhook delivery and per manifest (decrypting a signing secret; only when the stage has a customer managed key)' },
} as const;
export type AssumptionName = keyof typeof assumptions;
type Knobs = Record<AssumptionName, number>;
const defaultKnobs = Object.fromEntries(Object.entries(assumptions).map(([k, v]) => [k, v.value])) as Knobs;

// ---------------------------------------------------------------------------------------------
// Templates

type Json = any;
export interface Resource {
  id: string;
  type: string;
  props: Json;
  metadata?: Json;
  template: string;
}
export interface Assembly {
  dir: string;
  stage?: string;
  /** From the stacks' environment (aws://account/region), when the synth pinned one. */
  region?: string;
  templates: string[];
  resources: Resource[];
  /** Each nested stack resource (`<template>|<logical id>`) -> its template file. */
  nested: Map<string, string>;
  /** Each template's Outputs (a nested stack's output read by its parent through `Fn::GetAtt`). */
  outputs: Map<string, Record<string, Json>>;
}

/**
 * The templates of one stage in a cloud assembly: the stacks named `Despacho-<stage>-*` in its
 * manifest.json and every nested stack they hold (followed by their `aws:asset:path`). Without a
 * manifest (a directory of templates), every `*.template.json` in it.
 */
export function readAssembly(dir: string, stage?: string): Assembly {
  const manifestPath = join(dir, 'manifest.json');
  const files: string[] = [];
  const nestedByHash = new Map<string, string>();
  let region: string | undefined;
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const stacks = Object.entries<Json>(manifest.artifacts ?? {}).filter(
      ([id, a]) => a.type === 'aws:cloudformation:stack' && (!stage || id.startsWith(`Despacho-${stage}-`)),
    );
    if (stacks.length === 0) throw new Error(`no stack of stage ${stage ?? '(any)'} in ${dir}: run npx cdk synth -c stage=${stage ?? 'dev'} first`);
    const stagesThere = [...new Set(stacks.map(([id]) => /^Despacho-([^-]+)-/.exec(id)?.[1] ?? id))];
    if (!stage && stagesThere.length > 1) throw new Error(`${dir} holds the stacks of ${stagesThere.join(', ')}: name one with --stage`);
    for (const [id, a] of stacks) {
      files.push(a.properties.templateFile);
      // Its nested stacks' templates are file assets of the stack (also named by each nested
      // stack's `aws:asset:path` metadata, which `cdk synth` writes and an in-process synth may not).
      const assets = manifest.artifacts[`${id}.assets`]?.properties?.file;
      if (assets && existsSync(join(dir, assets))) {
        for (const f of Object.values<Json>(JSON.parse(readFileSync(join(dir, assets), 'utf8')).files ?? {})) {
          const path = f.source?.path;
          if (typeof path === 'string' && path.endsWith('.nested.template.json')) files.push(path);
        }
        for (const [hash, f] of Object.entries<Json>(JSON.parse(readFileSync(join(dir, assets), 'utf8')).files ?? {})) {
          if (String(f.source?.path).endsWith('.nested.template.json')) nestedByHash.set(hash, f.source.path);
        }
      }
      // The stage's region: its data stack's (an edge stack for CloudFront may sit in us-east-1).
      const r = /^aws:\/\/[^/]+\/(.+)$/.exec(a.environment ?? '')?.[1];
      if (r && r !== 'unknown-region' && (!region || id.endsWith('-data'))) region = r;
    }
  } else {
    files.push(...readdirSync(dir).filter((f) => f.endsWith('.template.json')).sort());
    if (files.length === 0) throw new Error(`no *.template.json in ${dir}`);
  }
  const resources: Resource[] = [];
  const nested = new Map<string, string>();
  const outputs = new Map<string, Record<string, Json>>();
  const seen = new Set<string>();
  const read = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const t = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    outputs.set(file, t.Outputs ?? {});
    for (const [id, r] of Object.entries<Json>(t.Resources ?? {})) {
      resources.push({ id, type: r.Type, props: r.Properties ?? {}, metadata: r.Metadata, template: file });
      if (r.Type !== 'AWS::CloudFormation::Stack') continue;
      const url = JSON.stringify(r.Properties?.TemplateURL ?? '');
      const child = r.Metadata?.['aws:asset:path'] ?? [...nestedByHash].find(([hash]) => url.includes(hash))?.[1];
      if (typeof child === 'string' && existsSync(join(dir, child))) {
        nested.set(`${file}|${id}`, child);
        read(child);
      }
    }
  };
  for (const f of files) read(f);
  return { dir, stage, region, templates: [...seen], resources, nested, outputs };
}

/** The logical id a value names in its own template (`Ref`, `Fn::GetAtt`, or the first inside a `Fn::Join`). */
function referenced(value: Json): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  if (typeof value.Ref === 'string') return value.Ref;
  if (Array.isArray(value['Fn::GetAtt'])) return value['Fn::GetAtt'][0];
  if (Array.isArray(value['Fn::Join'])) for (const part of value['Fn::Join'][1]) { const id = referenced(part); if (id && !id.startsWith('AWS::')) return id; }
  return undefined;
}

/** Runs a day of a schedule expression (`rate(...)`, `cron(min hour ...)`); `at(...)` is once. */
export function runsPerDay(expression: string): number {
  const rate = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (rate) {
    const n = Number(rate[1]);
    return rate[2].startsWith('minute') ? 1440 / n : rate[2].startsWith('hour') ? 24 / n : 1 / n;
  }
  const cron = /^cron\((\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+(\s+\S+)?\)$/.exec(expression.trim());
  if (!cron) return 0;
  const matches = (field: string, size: number) => {
    let count = 0;
    for (let v = 0; v < size; v++) if (field.split(',').some((part) => fieldHas(part, v, size))) count++;
    return count;
  };
  return matches(cron[1], 60) * matches(cron[2], 24);
}
function fieldHas(part: string, v: number, size: number): boolean {
  const [range, stepText] = part.split('/');
  const step = stepText ? Number(stepText) : 1;
  let lo = 0;
  let hi = size - 1;
  if (range !== '*') {
    const [a, b] = range.split('-').map(Number);
    lo = a;
    hi = b ?? (stepText ? size - 1 : a);
  }
  return v >= lo && v <= hi && (v - lo) % step === 0;
}

// ---------------------------------------------------------------------------------------------
// What the templates hold

export interface Fn {
  id: string;
  template: string;
  name?: string;
  memoryMb: number;
  arch: 'arm64' | 'x86_64';
  logLevel: string;
  traced: boolean;
}
export type WorkerKind = 'intake' | 'pipelineStart' | 'webhookFanout' | 'webhookDelivery' | 'scheduled' | 'unknown';
export interface Inventory {
  functions: Fn[];
  authorizer: Fn[];
  authorizerTtlSeconds: number;
  routes: Fn[];
  workers: Array<{ fn: Fn; kind: WorkerKind; runsPerDay: number }>;
  stateMachines: Array<{ id: string; type: 'STANDARD' | 'EXPRESS'; logLevel: string; topTasks: Fn[]; pageTasks: Fn[]; transitions: { perRun: number; perPage: number }; childType?: 'STANDARD' | 'EXPRESS' }>;
  httpApis: number;
  accessLogs: boolean;
  alarms: { metrics: number; highResolutionMetrics: number; alarms: number; composite: number };
  dashboards: number;
  logGroups: number;
  logRetentionDays: number;
  kmsKeys: number;
  webAcls: Array<{ id: string; rules: number; extraFeeGroups: string[] }>;
  distributions: number;
  hostedZones: number;
  queues: number;
  eventSourceMappings: number;
  schedules: Array<{ id: string; runsPerDay: number }>;
  tables: Array<{ id: string; onDemand: boolean; pitr: boolean; tableClass?: string }>;
  backupCopies: number;
  backupsS3: boolean;
  buckets: Array<{ id: string; accessLogs: boolean }>;
  samplingRule?: { reservoirPerSecond: number; fixedRate: number };
  snsTopics: number;
  eventBuses: number;
  /** Types with no charge of their own (or priced through another line), by count. */
  free: Record<string, number>;
  /** Types the script does not know, by count: listed as not priced. */
  unknown: Record<string, number>;
}

/** Types priced below, directly or through the volume. */
const pricedTypes = new Set([
  'AWS::Lambda::Function', 'AWS::ApiGatewayV2::Api', 'AWS::DynamoDB::Table', 'AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket', 'AWS::StepFunctions::StateMachine',
  'AWS::SQS::Queue', 'AWS::CloudWatch::Alarm', 'AWS::CloudWatch::CompositeAlarm', 'AWS::CloudWatch::Dashboard', 'AWS::Logs::LogGroup', 'AWS::KMS::Key',
  'AWS::WAFv2::WebACL', 'AWS::CloudFront::Distribution', 'AWS::Route53::HostedZone', 'AWS::Scheduler::Schedule', 'AWS::Events::EventBus',
  'AWS::Backup::BackupPlan', 'AWS::XRay::SamplingRule', 'AWS::Lambda::EventSourceMapping',
]);
/** Types that cost nothing by themselves (permissions, wiring, deploy-time helpers, free certificates). */
const freeTypes = new Set([
  'AWS::IAM::Role', 'AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy', 'AWS::Lambda::Permission', 'AWS::Lambda::Version', 'AWS::Lambda::Alias',
  'AWS::ApiGatewayV2::Route', 'AWS::ApiGatewayV2::Integration', 'AWS::ApiGatewayV2::Authorizer', 'AWS::ApiGatewayV2::Stage',
  'AWS::ApiGatewayV2::DomainName', 'AWS::ApiGatewayV2::ApiMapping', 'AWS::CloudFormation::Stack', 'AWS::CDK::Metadata',
  'AWS::S3::BucketPolicy', 'AWS::SQS::QueuePolicy', 'AWS::SNS::Topic', 'AWS::SNS::TopicPolicy', 'AWS::SNS::Subscription',
  'AWS::Events::Rule', 'AWS::Scheduler::ScheduleGroup', 'AWS::KMS::Alias', 'AWS::CertificateManager::Certificate',
  'AWS::Route53::RecordSet', 'AWS::Route53::RecordSetGroup', 'AWS::CloudFront::CachePolicy', 'AWS::CloudFront::OriginRequestPolicy',
  'AWS::CloudFront::ResponseHeadersPolicy', 'AWS::CloudFront::OriginAccessControl', 'AWS::WAFv2::WebACLAssociation', 'AWS::WAFv2::IPSet',
  'AWS::Backup::BackupVault', 'AWS::Backup::BackupSelection', 'AWS::Logs::ResourcePolicy', 'AWS::Logs::MetricFilter', 'AWS::Logs::SubscriptionFilter',
  'AWS::SSM::Parameter', 'AWS::Lambda::EventInvokeConfig', 'AWS::Lambda::Url', 'AWS::ApiGatewayV2::Deployment',
]);
/** Managed rule groups that carry a subscription and request fee of their own (not priced here). */
const extraFeeRuleGroups = /BotControl|ATPRuleSet|ACFPRuleSet|AntiDDoS/;

const workerKindByName: Array<[RegExp, WorkerKind]> = [
  [/ManifestIntake/, 'intake'],
  [/PipelineStart/, 'pipelineStart'],
  [/WebhookFanout/, 'webhookFanout'],
  [/WebhookDelivery/, 'webhookDelivery'],
];

export function inventory(assembly: Assembly): Inventory {
  const { resources } = assembly;
  const inTemplate = (template: string, id: string | undefined) => (id ? resources.find((r) => r.template === template && r.id === id) : undefined);
  const ofType = (type: string) => resources.filter((r) => r.type === type);
  const count = (type: string) => ofType(type).length;

  const functions: Fn[] = ofType('AWS::Lambda::Function').map((r) => {
    const env = r.props.Environment?.Variables ?? {};
    return {
      id: r.id,
      template: r.template,
      name: typeof r.props.FunctionName === 'string' ? r.props.FunctionName : undefined,
      memoryMb: Number(r.props.MemorySize ?? 128),
      arch: (r.props.Architectures?.[0] ?? 'x86_64') as Fn['arch'],
      logLevel: String(env.LOG_LEVEL ?? env.POWERTOOLS_LOG_LEVEL ?? 'INFO').toUpperCase(),
      traced: r.props.TracingConfig?.Mode === 'Active',
    };
  });
  const fnAt = (template: string, id: string | undefined) => functions.find((f) => f.template === template && f.id === id);
  /** The function a value names, through a nested stack's output when it is one. */
  const fnOf = (template: string, value: Json): Fn | undefined => {
    const getAtt = value?.['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[1] === 'string' && getAtt[1].startsWith('Outputs.')) {
      const child = assembly.nested.get(`${template}|${getAtt[0]}`);
      return child ? fnOf(child, assembly.outputs.get(child)?.[getAtt[1].slice('Outputs.'.length)]?.Value) : undefined;
    }
    if (value && typeof value === 'object' && Array.isArray(value['Fn::Join'])) {
      for (const part of value['Fn::Join'][1]) { const f = typeof part === 'object' ? fnOf(template, part) : undefined; if (f) return f; }
    }
    return fnAt(template, referenced(value));
  };

  const authorizers = ofType('AWS::ApiGatewayV2::Authorizer');
  const authorizer = authorizers.map((a) => fnOf(a.template, a.props.AuthorizerUri)).filter((f): f is Fn => !!f);
  const authorizerTtlSeconds = Math.min(...authorizers.map((a) => Number(a.props.AuthorizerResultTtlInSeconds ?? 300)), Infinity);
  const routes = [...new Set(ofType('AWS::ApiGatewayV2::Integration').map((i) => fnOf(i.template, i.props.IntegrationUri)).filter((f): f is Fn => !!f))];

  // Workers: each event source mapping, with the queue it reads and the schedules that fill it.
  const queues = ofType('AWS::SQS::Queue');
  const schedules = ofType('AWS::Scheduler::Schedule').map((s) => ({
    id: s.id,
    runsPerDay: s.props.State === 'DISABLED' ? 0 : runsPerDay(String(s.props.ScheduleExpression ?? '')),
    queue: referenced(s.props.Target?.Arn),
  }));
  const queueOf = (arn: Json): string | undefined => {
    const direct = referenced(arn);
    if (direct) return direct;
    const imported = JSON.stringify(arn ?? '');
    return queues.find((q) => imported.includes(q.id))?.id;
  };
  const workers = ofType('AWS::Lambda::EventSourceMapping').flatMap((m) => {
    const fn = fnOf(m.template, m.props.FunctionName);
    if (!fn) return [];
    const queue = queueOf(m.props.EventSourceArn);
    const scheduled = schedules.filter((s) => s.queue && s.queue === queue);
    if (scheduled.length > 0) return [{ fn, kind: 'scheduled' as WorkerKind, runsPerDay: scheduled.reduce((a, s) => a + s.runsPerDay, 0) }];
    const kind = workerKindByName.find(([re]) => re.test(fn.id) || re.test(fn.name ?? ''))?.[1] ?? 'unknown';
    return [{ fn, kind, runsPerDay: 0 }];
  });

  const stateMachines = ofType('AWS::StepFunctions::StateMachine').map((r) => {
    const { definition, refs } = stateMachineDefinition(r.props);
    const topTasks: Fn[] = [];
    const pageTasks: Fn[] = [];
    let perRun = 0;
    let perPage = 0;
    let childType: 'STANDARD' | 'EXPRESS' | undefined;
    const taskFn = (state: Json) => {
      const token = String(state.Parameters?.FunctionName ?? state.Resource ?? '');
      return fnAt(r.template, refs.get(token));
    };
    // The states a successful run enters: from StartAt along Next (a Choice's Default), each
    // Parallel's branches whole, each Map's item processor once per page.
    const walk = (machine: Json, inPage: boolean) => {
      let name: string | undefined = machine?.StartAt;
      const visited = new Set<string>();
      while (name && !visited.has(name)) {
        visited.add(name);
        const state = machine.States[name];
        if (!state) break;
        if (inPage) perPage++;
        else perRun++;
        if (state.Type === 'Task') {
          const fn = taskFn(state);
          if (fn) (inPage ? pageTasks : topTasks).push(fn);
        }
        if (state.Type === 'Parallel') for (const b of state.Branches ?? []) walk(b, inPage);
        if (state.Type === 'Map') {
          const processor = state.ItemProcessor ?? state.Iterator;
          if (state.ItemProcessor?.ProcessorConfig?.Mode === 'DISTRIBUTED') childType = state.ItemProcessor.ProcessorConfig.ExecutionType ?? 'STANDARD';
          walk(processor, true);
        }
        name = state.End ? undefined : state.Type === 'Choice' ? state.Default : state.Next;
      }
    };
    walk(definition, false);
    return {
      id: r.id,
      type: (r.props.StateMachineType ?? 'STANDARD') as 'STANDARD' | 'EXPRESS',
      logLevel: String(r.props.LoggingConfiguration?.Level ?? 'OFF'),
      topTasks,
      pageTasks,
      transitions: { perRun, perPage },
      childType,
    };
  });

  let metricsCount = 0;
  let highRes = 0;
  for (const a of ofType('AWS::CloudWatch::Alarm')) {
    const n = Array.isArray(a.props.Metrics) ? a.props.Metrics.filter((m: Json) => m.MetricStat).length : 1;
    const period = Number(a.props.Period ?? a.props.Metrics?.find((m: Json) => m.MetricStat)?.MetricStat?.Period ?? 60);
    if (period < 60) highRes += n;
    else metricsCount += n;
  }

  const logGroups = ofType('AWS::Logs::LogGroup');
  const retention = logGroups.map((g) => Number(g.props.RetentionInDays ?? 3653));

  const webAcls = ofType('AWS::WAFv2::WebACL').map((w) => {
    const rules: Json[] = w.props.Rules ?? [];
    return {
      id: w.id,
      rules: rules.length,
      extraFeeGroups: rules.map((r) => r.Statement?.ManagedRuleGroupStatement?.Name).filter((n: unknown): n is string => typeof n === 'string' && extraFeeRuleGroups.test(n)),
    };
  });

  const tables = [...ofType('AWS::DynamoDB::Table'), ...ofType('AWS::DynamoDB::GlobalTable')].map((t) => ({
    id: t.id,
    onDemand: t.props.BillingMode === 'PAY_PER_REQUEST',
    pitr: !!(t.props.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled ?? t.props.Replicas?.[0]?.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled),
    tableClass: t.props.TableClass,
  }));

  // Backups: each plan rule keeps DeleteAfterDays days of its runs (kept for ever: a year is counted).
  let backupCopies = 0;
  for (const plan of ofType('AWS::Backup::BackupPlan')) {
    for (const rule of plan.props.BackupPlan?.BackupPlanRule ?? []) {
      const perDay = runsPerDay(String(rule.ScheduleExpression ?? 'cron(0 5 ? * * *)'));
      backupCopies += perDay * Number(rule.Lifecycle?.DeleteAfterDays ?? 365);
    }
  }
  const bucketIds = new Set(ofType('AWS::S3::Bucket').map((b) => b.id));
  const backupsS3 = ofType('AWS::Backup::BackupSelection').some((s) => JSON.stringify(s.props).match(/s3|Bucket/i) && [...bucketIds].some((id) => JSON.stringify(s.props).includes(id)));

  const logTargets = new Set(ofType('AWS::S3::Bucket').map((b) => referenced(b.props.LoggingConfiguration?.DestinationBucketName)).filter(Boolean));
  const buckets = ofType('AWS::S3::Bucket').map((b) => ({ id: b.id, accessLogs: logTargets.has(b.id) }));

  const rule = ofType('AWS::XRay::SamplingRule')[0]?.props.SamplingRule;
  const samplingRule = rule ? { reservoirPerSecond: Number(rule.ReservoirSize ?? 1), fixedRate: Number(rule.FixedRate ?? 0.05) } : undefined;

  const free: Record<string, number> = {};
  const unknown: Record<string, number> = {};
  for (const r of resources) {
    if (pricedTypes.has(r.type)) continue;
    const bucket = freeTypes.has(r.type) || r.type.startsWith('Custom::') ? free : unknown;
    bucket[r.type] = (bucket[r.type] ?? 0) + 1;
  }

  return {
    functions,
    authorizer,
    authorizerTtlSeconds: Number.isFinite(authorizerTtlSeconds) ? authorizerTtlSeconds : 0,
    routes,
    workers,
    stateMachines,
    httpApis: ofType('AWS::ApiGatewayV2::Api').filter((a) => (a.props.ProtocolType ?? 'HTTP') === 'HTTP').length,
    accessLogs: ofType('AWS::ApiGatewayV2::Stage').some((s) => !!s.props.AccessLogSettings),
    alarms: { metrics: metricsCount, highResolutionMetrics: highRes, alarms: count('AWS::CloudWatch::Alarm'), composite: count('AWS::CloudWatch::CompositeAlarm') },
    dashboards: count('AWS::CloudWatch::Dashboard'),
    logGroups: logGroups.length,
    logRetentionDays: retention.length ? Math.max(...retention) : 0,
    kmsKeys: count('AWS::KMS::Key'),
    webAcls,
    distributions: count('AWS::CloudFront::Distribution'),
    hostedZones: count('AWS::Route53::HostedZone'),
    queues: queues.length,
    eventSourceMappings: count('AWS::Lambda::EventSourceMapping'),
    schedules: schedules.map(({ id, runsPerDay: n }) => ({ id, runsPerDay: n })),
    tables,
    backupCopies,
    backupsS3,
    buckets,
    samplingRule,
    snsTopics: count('AWS::SNS::Topic'),
    eventBuses: count('AWS::Events::EventBus'),
    free,
    unknown,
  };
}

/**
 * A state machine's definition as an object, each reference inside its `Fn::Join` replaced by a
 * token (`refs` maps the token back to the logical id), so a Task's Resource names its function.
 */
function stateMachineDefinition(props: Json): { definition: Json; refs: Map<string, string> } {
  const refs = new Map<string, string>();
  const def = props.DefinitionString ?? props.Definition;
  if (def && typeof def === 'object' && !Array.isArray(def) && !def['Fn::Join']) return { definition: def, refs };
  if (typeof def === 'string') return { definition: JSON.parse(def), refs };
  const parts: Json[] = def?.['Fn::Join']?.[1] ?? [];
  const text = parts
    .map((p, i) => {
      if (typeof p === 'string') return p;
      const id = referenced(p);
      const token = `__ref_${i}__`;
      if (id) refs.set(token, id);
      return token;
    })
    .join('');
  // A token may stand beside text inside one JSON string (an ARN built of parts): map those too.
  const definition = JSON.parse(text, (_key, value) => {
    if (typeof value === 'string' && value.includes('__ref_') && !refs.has(value)) {
      const token = [...value.matchAll(/__ref_\d+__/g)].map((m) => m[0]).find((t) => refs.has(t));
      if (token) refs.set(value, refs.get(token)!);
    }
    return value;
  });
  return { definition, refs };
}

// ---------------------------------------------------------------------------------------------
// The estimate

export interface Line {
  service: string;
  item: string;
  quantity: number;
  unit: string;
  price: string;
  unitUsd: number;
  assumedPrice: boolean;
  usd: number;
}
export interface NotPriced {
  what: string;
  count: number;
  why: string;
}
export interface Estimate {
  stage?: string;
  region: string;
  templateRegion?: string;
  pricesRead: string;
  volume: Volume;
  templates: number;
  resources: number;
  inventory: Inventory;
  lines: Line[];
  byService: Record<string, number>;
  total: number;
  notPriced: NotPriced[];
  assumptions: Knobs;
}

const GB = 1024 * 1024 * 1024;
const KB_PER_GB = 1024 * 1024;

export function estimate(assembly: Assembly, volume: Volume, opts: { region?: string; knobs?: Partial<Knobs> } = {}): Estimate {
  const region = opts.region ?? (assembly.region && assembly.region in priceBook.regions ? assembly.region : 'us-east-1');
  if (!(region in priceBook.regions)) throw new Error(`no prices for ${region}: scripts/cost-prices.json has ${Object.keys(priceBook.regions).join(', ')}`);
  const k: Knobs = { ...defaultKnobs, ...opts.knobs };
  const inv = inventory(assembly);
  const lines: Line[] = [];
  const notPriced: NotPriced[] = [];
  const add = (service: string, item: string, quantity: number, priceKey: string) => {
    const entry = priceBook.prices[priceKey];
    if (!entry) throw new Error(`no price ${priceKey} in scripts/cost-prices.json`);
    const unitUsd = entry.usd[region];
    if (unitUsd === undefined) throw new Error(`no ${region} price for ${priceKey} in scripts/cost-prices.json`);
    lines.push({ service, item, quantity, unit: entry.unit, price: priceKey, unitUsd, assumedPrice: !!entry.assumed?.[region], usd: quantity * unitUsd });
  };

  const days = k.daysPerMonth;
  const requests = volume.requestsPerDay * days;
  const manifests = volume.manifestsPerDay * days;
  const items = manifests * volume.itemsPerManifest;
  const deliveries = volume.webhookDeliveriesPerDay * days;
  const pages = Math.ceil(volume.itemsPerManifest / k.pageSize);

  // Lambda: invocations and GB-seconds per kind, each function at its own memory and architecture.
  const invocationsByFn = new Map<Fn, { count: number; ms: number }>();
  const invoke = (fns: Fn[], total: number, ms: number) => {
    if (fns.length === 0 || total <= 0) return;
    for (const fn of fns) {
      const prev = invocationsByFn.get(fn) ?? { count: 0, ms: 0 };
      const n = total / fns.length;
      invocationsByFn.set(fn, { count: prev.count + n, ms: prev.ms + n * ms });
    }
  };
  const lambdaKind = (label: string, fns: Fn[], total: number, ms: number) => {
    if (fns.length === 0 || total <= 0) return;
    invoke(fns, total, ms);
    add('Lambda', `${label}: invocations`, total, 'lambda.request');
    for (const arch of ['arm64', 'x86_64'] as const) {
      const gbSeconds = fns.filter((f) => f.arch === arch).reduce((a, f) => a + (total / fns.length) * (ms / 1000) * (f.memoryMb / 1024), 0);
      if (gbSeconds > 0) add('Lambda', `${label}: compute (${arch})`, gbSeconds, `lambda.gbSecond.${arch}`);
    }
  };
  const cacheHit = inv.authorizerTtlSeconds > 0 ? k.authorizerCacheHitShare : 0;
  const authorizerCalls = requests * (1 - cacheHit);
  lambdaKind('authorizer', inv.authorizer, authorizerCalls, k.authorizerMs);
  lambdaKind('API routes', inv.routes, requests, k.routeMs);
  const workersOf = (kind: WorkerKind) => inv.workers.filter((w) => w.kind === kind).map((w) => w.fn);
  lambdaKind('manifest intake', workersOf('intake'), manifests, k.intakeMsBase + k.intakeMsPerItem * volume.itemsPerManifest);
  lambdaKind('pipeline start', workersOf('pipelineStart'), manifests, k.workerMs);
  const events = deliveries / k.deliveriesPerEvent;
  lambdaKind('webhook fan-out', workersOf('webhookFanout'), events, k.workerMs);
  lambdaKind('webhook delivery', workersOf('webhookDelivery'), deliveries * (1 + k.deliveryRetryShare), k.deliveryMs);
  for (const w of inv.workers.filter((x) => x.kind === 'scheduled')) lambdaKind(`scheduled ${w.fn.name ?? w.fn.id}`, [w.fn], w.runsPerDay * days, k.scheduledMs);
  for (const sm of inv.stateMachines) {
    // Each task of a run once per manifest, each page task once per page.
    for (const fn of sm.topTasks) invoke([fn], manifests, k.pipelineTaskMs);
    for (const fn of sm.pageTasks) invoke([fn], manifests * pages, k.pipelinePageMs);
    const tasks = [...sm.topTasks.map((fn) => ({ fn, n: manifests, ms: k.pipelineTaskMs })), ...sm.pageTasks.map((fn) => ({ fn, n: manifests * pages, ms: k.pipelinePageMs }))];
    if (tasks.length === 0) continue;
    add('Lambda', 'pipeline tasks: invocations', tasks.reduce((a, t) => a + t.n, 0), 'lambda.request');
    for (const arch of ['arm64', 'x86_64'] as const) {
      const gbs = tasks.filter((t) => t.fn.arch === arch).reduce((a, t) => a + t.n * (t.ms / 1000) * (t.fn.memoryMb / 1024), 0);
      if (gbs > 0) add('Lambda', `pipeline tasks: compute (${arch})`, gbs, `lambda.gbSecond.${arch}`);
    }
  }
  const idle = inv.workers.filter((w) => w.kind === 'unknown');
  if (idle.length > 0) notPriced.push({ what: `worker functions with no assumed traffic (${idle.map((w) => w.fn.name ?? w.fn.id).join(', ')})`, count: idle.length, why: 'the script does not know what fills their queues' });

  // API Gateway (HTTP API): every request, whatever answers it.
  if (inv.httpApis > 0) add('API Gateway', 'HTTP API requests', requests, 'apigateway.http.request');

  // DynamoDB on demand.
  const storedItems = volume.itemsPerManifest * volume.manifestsPerDay * days * volume.monthsOfData;
  const tableGb = (storedItems * k.itemKbStored) / KB_PER_GB;
  for (const t of inv.tables) {
    if (!t.onDemand) {
      notPriced.push({ what: `DynamoDB table ${t.id} with provisioned capacity`, count: 1, why: 'the script prices on-demand tables only' });
      continue;
    }
    if (t.tableClass && t.tableClass !== 'STANDARD') notPriced.push({ what: `DynamoDB table class ${t.tableClass} of ${t.id}`, count: 1, why: 'priced as Standard' });
    const wru = authorizerCalls * k.authorizerWru + requests * (k.routeWru + k.rateWru) + items * k.itemWru + manifests * k.manifestWru + deliveries * k.deliveryWru;
    const rru = authorizerCalls * k.authorizerRru + requests * k.routeRru + items * k.itemRru + manifests * k.manifestRru + deliveries * k.deliveryRru;
    add('DynamoDB', 'write request units', wru, 'dynamodb.ondemand.wru');
    add('DynamoDB', 'read request units', rru, 'dynamodb.ondemand.rru');
    add('DynamoDB', `storage (GB after ${volume.monthsOfData} months)`, tableGb, 'dynamodb.storage');
    if (t.pitr) add('DynamoDB', 'point-in-time recovery (GB)', tableGb, 'dynamodb.pitr');
  }
  if (inv.tables.length > 0) add('AWS Backup', inv.backupCopies > 0 ? `table backups kept (${inv.backupCopies} full copies, GB)` : 'backup plans (none in the templates)', inv.backupCopies * tableGb, 'backup.dynamodb.warm');
  if (inv.backupsS3) notPriced.push({ what: 'AWS Backup of S3 buckets', count: 1, why: 'the script prices DynamoDB backups only' });

  // S3: the files bucket's objects and requests; access logs by S3's own delivery (free but stored).
  const dataBuckets = inv.buckets.filter((b) => !b.accessLogs);
  if (dataBuckets.length > 0) {
    const storedGb = (storedItems * k.s3KbPerItem) / KB_PER_GB;
    add('S3', `files stored (GB after ${volume.monthsOfData} months)`, storedGb, 's3.standard.storage');
    add('S3', 'PUT and LIST requests', manifests * (pages * k.s3PutsPerPage + k.s3RequestsPerManifest), 's3.put');
    add('S3', 'GET requests', manifests * (pages * k.s3GetsPerPage + k.s3RequestsPerManifest), 's3.get');
  }

  // Step Functions: transitions per run read from the definition.
  for (const sm of inv.stateMachines) {
    const perManifest = sm.transitions.perRun + pages * sm.transitions.perPage;
    if (sm.type === 'STANDARD' && (sm.childType ?? 'STANDARD') === 'STANDARD') {
      add('Step Functions', `state transitions (${sm.transitions.perRun} + ${sm.transitions.perPage} a page = ${perManifest} a manifest)`, manifests * perManifest, 'stepfunctions.standard.transition');
    } else if (sm.type === 'STANDARD') {
      add('Step Functions', `state transitions of the run (${sm.transitions.perRun} a manifest)`, manifests * sm.transitions.perRun, 'stepfunctions.standard.transition');
      add('Step Functions', 'express child executions (one a page)', manifests * pages * (sm.transitions.perPage > 0 ? 1 : 0), 'stepfunctions.express.request');
      add('Step Functions', 'express child duration (64 MB)', manifests * pages * (k.pipelinePageMs / 1000) * (64 / 1024), 'stepfunctions.express.gbSecond');
    } else {
      add('Step Functions', 'express executions', manifests, 'stepfunctions.express.request');
      add('Step Functions', 'express duration (64 MB)', manifests * ((k.pipelineTaskMs * sm.topTasks.length + k.pipelinePageMs * pages * sm.pageTasks.length) / 1000) * (64 / 1024), 'stepfunctions.express.gbSecond');
    }
  }

  // SQS: each worker invocation is one message (an upper bound where batches form), plus the
  // pollers' empty receives on each mapping.
  const messages = inv.workers.reduce((a, w) => a + (invocationsByFn.get(w.fn)?.count ?? 0), 0);
  if (inv.queues > 0) {
    add('SQS', 'requests for messages (send, receive, delete)', messages * k.sqsRequestsPerMessage, 'sqs.standard.request');
    add('SQS', `empty receives of ${inv.eventSourceMappings} event source mappings`, inv.eventSourceMappings * k.sqsIdlePollsPerMappingMonth, 'sqs.standard.request');
  }
  if (inv.eventBuses > 0) add('EventBridge', 'custom events', manifests * k.eventsPerManifest + events, 'eventbridge.customEvent');
  const scheduleRuns = inv.schedules.reduce((a, s) => a + s.runsPerDay * days, 0);
  if (scheduleRuns > 0) add('EventBridge', `Scheduler invocations (${inv.schedules.length} schedules)`, scheduleRuns, 'scheduler.invocation');

  // CloudWatch.
  if (inv.alarms.metrics > 0) add('CloudWatch', `alarms (${inv.alarms.alarms} alarms, ${inv.alarms.metrics} alarm metrics)`, inv.alarms.metrics, 'cloudwatch.alarm.standard');
  if (inv.alarms.highResolutionMetrics > 0) add('CloudWatch', 'high-resolution alarm metrics', inv.alarms.highResolutionMetrics, 'cloudwatch.alarm.highResolution');
  if (inv.alarms.composite > 0) add('CloudWatch', 'composite alarms', inv.alarms.composite, 'cloudwatch.alarm.composite');
  if (inv.dashboards > 0) add('CloudWatch', 'dashboards', inv.dashboards, 'cloudwatch.dashboard');
  const customMetrics = customMetricCount();
  if (inv.functions.length > 0) add('CloudWatch', 'custom metrics (lambdas/shared/metric-names.ts)', customMetrics, 'cloudwatch.customMetric');
  let logBytes = 0;
  for (const [fn, calls] of invocationsByFn) logBytes += calls.count * k.logBytesPerInvocation * (fn.logLevel === 'DEBUG' ? 4 : 1);
  if (inv.accessLogs) logBytes += requests * k.accessLogBytes;
  for (const sm of inv.stateMachines) if (sm.logLevel === 'ALL') logBytes += manifests * (sm.transitions.perRun + pages * sm.transitions.perPage) * 2 * k.stateLogBytes;
  if (inv.logGroups > 0) {
    add('CloudWatch', 'logs ingested (GB)', logBytes / GB, 'cloudwatch.logs.ingestion');
    const keptMonths = Math.min(inv.logRetentionDays / days, volume.monthsOfData);
    add('CloudWatch', `logs stored (GB, ${inv.logRetentionDays} days kept)`, (logBytes / GB) * keptMonths * k.logCompression, 'cloudwatch.logs.storage');
  }

  // X-Ray: the entry points of traces (API requests, worker and state machine runs), sampled.
  if (inv.functions.some((f) => f.traced)) {
    const entries = requests + messages + manifests;
    const perSecond = entries / (days * 86_400);
    const rule = inv.samplingRule ?? { reservoirPerSecond: 1, fixedRate: 0.05 };
    const sampledPerSecond = Math.min(perSecond, rule.reservoirPerSecond) + rule.fixedRate * Math.max(perSecond - rule.reservoirPerSecond, 0);
    const traces = sampledPerSecond * days * 86_400;
    add('X-Ray', `traces recorded (${inv.samplingRule ? 'the template\'s sampling rule' : 'default sampling: 1 a second and 5% beyond'})`, traces, 'xray.traceRecorded');
    add('X-Ray', 'traces retrieved or scanned', traces * k.xrayRetrievedShare, 'xray.traceRetrieved');
  }

  // KMS.
  if (inv.kmsKeys > 0) {
    add('KMS', 'customer managed keys', inv.kmsKeys, 'kms.key');
    add('KMS', 'requests (signing secrets)', (deliveries + manifests) * k.kmsRequestsPerDelivery, 'kms.request');
  }

  // WAF and CloudFront in front of the API.
  // Absent ones are printed at 0, so a reader sees they were looked for.
  if (inv.webAcls.length === 0) add('WAF', 'web ACLs (none in the templates)', 0, 'waf.webAcl');
  if (inv.distributions === 0) add('CloudFront', 'distributions (none in the templates)', 0, 'cloudfront.httpsRequest');
  for (const acl of inv.webAcls) {
    add('WAF', `web ACL ${acl.id}`, 1, 'waf.webAcl');
    add('WAF', `rules of ${acl.id}`, acl.rules, 'waf.rule');
    add('WAF', `requests inspected by ${acl.id}`, requests, 'waf.request');
    if (acl.extraFeeGroups.length > 0) notPriced.push({ what: `managed rule groups with a fee of their own (${acl.extraFeeGroups.join(', ')})`, count: acl.extraFeeGroups.length, why: 'subscription and per-request fees not in the price file' });
  }
  const responseGb = (requests * k.responseKb) / KB_PER_GB;
  const downloadGb = (items * k.downloadKbPerItem) / KB_PER_GB;
  if (inv.distributions > 0) {
    add('CloudFront', 'HTTPS requests', requests, 'cloudfront.httpsRequest');
    add('CloudFront', 'data out (GB)', responseGb, 'cloudfront.dataOut');
    add('Data transfer', 'out to the internet (GB, downloads)', downloadGb, 'dataTransfer.out');
  } else if (inv.httpApis > 0) {
    add('Data transfer', 'out to the internet (GB, responses and downloads)', responseGb + downloadGb, 'dataTransfer.out');
  }
  if (inv.hostedZones > 0) add('Route 53', 'hosted zones', inv.hostedZones, 'route53.hostedZone');

  notPriced.push({ what: 'Secrets Manager secrets of marketplace connections', count: 0, why: `created at run time, not in the templates: ${priceBook.prices['secretsmanager.secret'].usd[region]} USD a secret a month` });
  if (inv.snsTopics > 0) notPriced.push({ what: 'SNS topics (alarm notifications)', count: inv.snsTopics, why: 'a few e-mails a month, within the free 1,000' });
  for (const [type, n] of Object.entries(inv.unknown).sort()) notPriced.push({ what: type, count: n, why: 'a resource type the script does not know' });

  const byService: Record<string, number> = {};
  for (const l of lines) byService[l.service] = (byService[l.service] ?? 0) + l.usd;
  const total = lines.reduce((a, l) => a + l.usd, 0);
  return {
    stage: assembly.stage,
    region,
    templateRegion: assembly.region,
    pricesRead: priceBook.read,
    volume,
    templates: assembly.templates.length,
    resources: assembly.resources.length,
    inventory: inv,
    lines,
    byService,
    total,
    notPriced,
    assumptions: k,
  };
}

/** The business metrics the services emit in AWS: one per metric and breakdown value (the `route` group is the twin's only). */
export function customMetricCount(): number {
  return Object.values(metricDefs).reduce((n, def: { group: string; by?: { values: readonly string[] } }) => (def.group === 'route' ? n : n + (def.by ? def.by.values.length : 1)), 0);
}

// ---------------------------------------------------------------------------------------------
// Printing

const usd = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const qty = (n: number) => (n >= 100 || Number.isInteger(n) ? Math.round(n).toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 3 }));
const unitPrice = (n: number) => (n >= 0.01 ? `$${n}` : `$${(n * 1e6).toLocaleString('en-US', { maximumFractionDigits: 4 })}/M`);

export function render(e: Estimate, profile?: string): string {
  const inv = e.inventory;
  const mem = new Map<string, number>();
  for (const f of inv.functions) mem.set(`${f.memoryMb} MB ${f.arch}`, (mem.get(`${f.memoryMb} MB ${f.arch}`) ?? 0) + 1);
  const out: string[] = [];
  out.push(`Despacho ${e.stage ?? ''}: monthly cost at ${profile ? `the ${profile} volume` : 'the given volume'}, ${e.region} prices (${priceBook.regions[e.region]})`);
  out.push(`prices as published, read ${e.pricesRead} (scripts/cost-prices.json; * = a price assumed for this region, not read)`);
  out.push(
    `volume: ${qty(e.volume.requestsPerDay)} API requests, ${qty(e.volume.manifestsPerDay)} manifests x ${qty(e.volume.itemsPerManifest)} items (${qty(e.volume.manifestsPerDay * e.volume.itemsPerManifest)} items), ` +
      `${qty(e.volume.webhookDeliveriesPerDay)} webhook deliveries a day; storage after ${e.volume.monthsOfData} months of it`,
  );
  out.push(`templates: ${e.templates} (${e.resources} resources)${e.templateRegion ? `, synthesized for ${e.templateRegion}` : ''}`);
  out.push(
    `read from them: ${inv.functions.length} functions (${[...mem].map(([k, n]) => `${n} x ${k}`).join(', ')}), ${inv.routes.length} route functions, ` +
      `authorizer cache ${inv.authorizerTtlSeconds} s, ${inv.workers.length} queue workers, ${inv.queues} queues, ${inv.schedules.length} schedules, ` +
      `${inv.stateMachines.map((s) => `${s.type.toLowerCase()} state machine (${s.transitions.perRun} transitions a run + ${s.transitions.perPage} a page)`).join(', ') || 'no state machine'}, ` +
      `${inv.alarms.alarms} alarms, ${inv.alarms.composite} composite, ${inv.dashboards} dashboards, ${inv.logGroups} log groups (${inv.logRetentionDays} days), ${inv.kmsKeys} KMS keys, ` +
      `${inv.webAcls.length} web ACLs (${inv.webAcls.reduce((a, w) => a + w.rules, 0)} rules), ${inv.distributions} CloudFront distributions, ` +
      `${inv.tables.length} tables${inv.tables.some((t) => t.pitr) ? ' with point-in-time recovery' : ''}, ${inv.backupCopies} table backups kept, ${inv.buckets.length} buckets`,
  );
  out.push('');
  const w = [14, 62, 16, 14, 12];
  const row = (c: string[]) => c.map((s, i) => (i >= 2 ? s.padStart(w[i]) : s.padEnd(w[i]))).join(' ');
  out.push(row(['service', 'item', 'quantity', 'unit price', 'USD']));
  for (const l of e.lines) out.push(row([l.service, l.item.slice(0, w[1]), qty(l.quantity), unitPrice(l.unitUsd) + (l.assumedPrice ? '*' : ''), usd(l.usd)]));
  out.push(row(['', '', '', '', '-'.repeat(w[4])]));
  out.push(row(['total', 'a month', '', '', usd(e.total)]));
  out.push('');
  out.push('by service: ' + Object.entries(e.byService).sort((a, b) => b[1] - a[1]).map(([s, v]) => `${s} ${usd(v)}`).join(', '));
  out.push('');
  out.push('not priced:');
  for (const n of e.notPriced) out.push(`  ${n.count > 0 ? `${n.count} x ` : ''}${n.what}: ${n.why}`);
  out.push('');
  out.push('assumptions (scripts/cost-estimate.ts; not measured in AWS):');
  for (const [name, a] of Object.entries(assumptions)) out.push(`  ${name} = ${e.assumptions[name as AssumptionName]}: ${a.says}`);
  out.push('  free tiers are not subtracted; prices are on-demand list prices without discounts');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Command line

export function parseCommandLine(argv: string[]): { dir: string; stage?: string; volume: Volume; profile?: string; region?: string; json: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      dir: { type: 'string', default: 'cdk.out' },
      stage: { type: 'string' },
      profile: { type: 'string' },
      'price-region': { type: 'string' },
      'requests-per-day': { type: 'string' },
      'manifests-per-day': { type: 'string' },
      'items-per-manifest': { type: 'string' },
      'webhook-deliveries-per-day': { type: 'string' },
      'months-of-data': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const profileName = values.profile ?? 'small';
  if (!(profileName in profiles)) throw new Error(`--profile ${profileName}: use ${Object.keys(profiles).join(' or ')}`);
  const base = profiles[profileName as keyof typeof profiles];
  const num = (flag: string, value: string | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${flag} ${JSON.stringify(value)}: a number of 0 or more`);
    return n;
  };
  const volume: Volume = {
    requestsPerDay: num('requests-per-day', values['requests-per-day'], base.requestsPerDay),
    manifestsPerDay: num('manifests-per-day', values['manifests-per-day'], base.manifestsPerDay),
    itemsPerManifest: num('items-per-manifest', values['items-per-manifest'], base.itemsPerManifest),
    webhookDeliveriesPerDay: num('webhook-deliveries-per-day', values['webhook-deliveries-per-day'], base.webhookDeliveriesPerDay),
    monthsOfData: num('months-of-data', values['months-of-data'], base.monthsOfData),
  };
  const custom = ['requests-per-day', 'manifests-per-day', 'items-per-manifest', 'webhook-deliveries-per-day', 'months-of-data'].some((f) => (values as Record<string, unknown>)[f] !== undefined);
  return { dir: resolve(values.dir!), stage: values.stage, volume, profile: custom ? `${profileName} (changed by flags)` : profileName, region: values['price-region'], json: values.json! };
}

function main() {
  try {
    const cli = parseCommandLine(process.argv.slice(2));
    const e = estimate(readAssembly(cli.dir, cli.stage), cli.volume, { region: cli.region });
    console.log(cli.json ? JSON.stringify(e, null, 2) : render(e, cli.profile));
  } catch (err) {
    console.error(`cost: ${(err as Error).message}`);
    process.exit(1);
  }
}

const invokedDirectly = !!process.argv[1] && existsSync(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) main();
