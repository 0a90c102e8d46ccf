import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizer, fallback, pipelineTasks, queues, routes, workers } from '../../lambdas/catalog';
import type { RouteDef, WorkerDef } from '../../lambdas/catalog-types';
import { metricNamespace, metrics as metricDefs } from '../../lambdas/shared/metric-names';
import { alarmThresholds } from '../../lib/alarm-thresholds';
import type { BuildOptions, BuiltStage } from '../../lib/app';
import { defaults } from '../../lib/functions';
import { nagFindings } from '../../lib/nag';
import { parseTracing, resolveStageConfig } from '../../lib/stage';
import { stageApp } from '../support/cdk';

/**
 * The stage's alarms, topic and dashboard are generated from the catalog: these tests read the
 * synthesized templates (the api stack and its nested route stacks side by side) and check that
 * every route, worker, pipeline task and queue the catalog declares is watched.
 */
type Resource = { Type: string; Properties: any };

interface Synthesized extends BuiltStage {
  resources: Record<string, Resource>;
}

function synth(stage: string, opts: Omit<BuildOptions, 'app'> = {}): Synthesized {
  const built = stageApp(stage, opts);
  const resources: Record<string, Resource> = {};
  for (const stack of [built.api, ...Object.values(built.api.routeStacks), built.data]) Object.assign(resources, Template.fromStack(stack).toJSON().Resources);
  return { ...built, resources };
}

const ofType = (s: Synthesized, type: string) => Object.entries(s.resources).filter(([, r]) => r.Type === type);
const alarmsOf = (s: Synthesized) => Object.fromEntries(ofType(s, 'AWS::CloudWatch::Alarm').map(([, r]) => [r.Properties.AlarmName as string, r.Properties]));
const functionIdByName = (s: Synthesized, name: string) => ofType(s, 'AWS::Lambda::Function').find(([, r]) => r.Properties.FunctionName === name)?.[0];

/** A route and a worker the catalog does not have, to show a new entry is watched with no more work. */
const probeRoute: RouteDef = { id: 'ProbeRoute', method: 'GET', path: '/v1/probe', handler: 'http/system/health', summary: 'probe', tag: 'probe', auth: 'public', timeoutSeconds: 20 };
const probeWorker: WorkerDef = { id: 'ProbeWorker', handler: 'http/system/health', summary: 'probe', queue: 'webhookDelivery' };

const deployedRoutes = routes.filter((r) => !r.twinOnly);
const functionIds = [...deployedRoutes.map((r) => r.id), authorizer.id, fallback.id, ...workers.map((w) => w.id), ...Object.values(pipelineTasks).map((t) => t.id)];

let prod: Synthesized;
let probe: Synthesized;

beforeAll(() => {
  prod = synth('prod', { alarmEmail: 'ops@example.com' });
  probe = synth('dev', { catalog: { routes: [...deployedRoutes.slice(0, 2), probeRoute], workers: [probeWorker] } });
}, 120_000);

describe('alarms from the catalog', { timeout: 60_000 }, () => {
  it('gives every route, the authorizer, the fallback, every worker and pipeline task an errors, a throttles and a duration alarm', () => {
    const alarms = alarmsOf(prod);
    for (const id of functionIds) {
      const fn = functionIdByName(prod, `despacho-prod-${id}`);
      expect(fn, id).toBeDefined();
      for (const [kind, metric, statistic] of [['errors', 'Errors', 'Sum'], ['throttles', 'Throttles', 'Sum'], ['duration', 'Duration', 'Maximum']]) {
        const alarm = alarms[`despacho-prod-${id}-${kind}`];
        expect(alarm, `${id} ${kind}`).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: metric, Statistic: statistic, Period: 300, TreatMissingData: 'notBreaching' });
        expect(alarm.Dimensions, `${id} ${kind}`).toEqual([{ Name: 'FunctionName', Value: { Ref: fn } }]);
        expect(alarm.AlarmActions, `${id} ${kind}`).toHaveLength(1);
      }
    }
  });

  it('sets each duration alarm at the share of its own timeout the thresholds name', () => {
    const alarms = alarmsOf(prod);
    const timeout = (id: string) =>
      ([...routes, ...workers, ...Object.values(pipelineTasks)] as { id: string; timeoutSeconds?: number }[]).find((d) => d.id === id)?.timeoutSeconds ??
      (workers.some((w) => w.id === id) || Object.values(pipelineTasks).some((t) => t.id === id) ? defaults.timeoutSeconds.worker : defaults.timeoutSeconds.http);
    for (const id of functionIds) expect(alarms[`despacho-prod-${id}-duration`].Threshold, id).toBe(Math.round(timeout(id) * 1000 * alarmThresholds.functions.durationOfTimeout));
    expect(alarms['despacho-prod-MarketplaceSync-duration'].Threshold).toBe(720_000);
  });

  it('alarms on any message in every dead-letter queue and on the oldest message of every queue', () => {
    const alarms = alarmsOf(prod);
    for (const name of Object.keys(queues) as (keyof typeof queues)[]) {
      expect(alarms[`despacho-prod-${name}-dead-letters`], name).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(JSON.stringify(alarms[`despacho-prod-${name}-dead-letters`].Dimensions), name).toContain(`${name.charAt(0).toUpperCase()}${name.slice(1)}Dlq`);
      expect(alarms[`despacho-prod-${name}-oldest-message`], name).toMatchObject({
        MetricName: 'ApproximateAgeOfOldestMessage',
        Threshold: alarmThresholds.queues.oldestMessageSeconds[name],
      });
    }
  });

  it('alarms on the API 5xx rate and p99 latency, failed and timed-out pipeline runs, disabled subscriptions and sync errors', () => {
    const alarms = alarmsOf(prod);
    const rate = alarms['despacho-prod-api-5xx-rate'];
    expect(rate.Metrics.find((m: any) => m.Expression)?.Expression).toBe(`IF(requests >= ${alarmThresholds.api.minRequests}, 100 * errors / requests, 0)`);
    expect(rate.Metrics.map((m: any) => m.MetricStat?.Metric.MetricName).filter(Boolean).sort()).toEqual(['5xx', 'Count']);
    expect(alarms['despacho-prod-api-p99-latency']).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: alarmThresholds.api.p99LatencyMs });
    expect(alarms['despacho-prod-manifest-pipeline-executions-failed']).toMatchObject({ Namespace: 'AWS/States', MetricName: 'ExecutionsFailed', Threshold: 1 });
    expect(alarms['despacho-prod-manifest-pipeline-executions-timed-out']).toMatchObject({ Namespace: 'AWS/States', MetricName: 'ExecutionsTimedOut' });
    const disabled = alarms['despacho-prod-webhooks-subscriptions-disabled'];
    expect(disabled.Metrics[0].MetricStat).toMatchObject({ Metric: { Namespace: metricNamespace, MetricName: 'WebhookSubscriptionsDisabled' }, Stat: 'Sum' });
    // The dimensions lambdas/shared/metrics.ts sends, exactly (CloudWatch matches the whole set).
    expect(disabled.Metrics[0].MetricStat.Metric.Dimensions).toEqual([
      { Name: 'group', Value: 'webhooks' },
      { Name: 'service', Value: 'despacho' },
      { Name: 'stage', Value: 'prod' },
    ]);
    // One line per channel the metric may carry, summed (an alarm cannot SEARCH).
    const sync = alarms['despacho-prod-orders-marketplace-sync-errors'];
    const channels = sync.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric.Dimensions.find((d: any) => d.Name === 'channel').Value);
    expect(channels.sort()).toEqual([...metricDefs.MarketplaceSyncErrors.by.values, 'other'].sort());
  });

  it('watches a route, a route group and a worker added to the catalog with no more work', () => {
    const alarms = alarmsOf(probe);
    for (const id of [probeRoute.id, probeWorker.id]) for (const kind of ['errors', 'throttles', 'duration']) expect(alarms[`despacho-dev-${id}-${kind}`], `${id} ${kind}`).toBeDefined();
    expect(alarms['despacho-dev-ProbeRoute-duration'].Threshold).toBe(16_000);
    // The route's alarms live in its group's nested stack, beside its function.
    const nested = Template.fromStack(probe.api.routeStacks.probe).toJSON().Resources as Record<string, Resource>;
    expect(Object.values(nested).filter((r) => r.Type === 'AWS::CloudWatch::Alarm')).toHaveLength(3);
  });
});

describe('notifications, dashboard and retention', { timeout: 60_000 }, () => {
  it('sends every alarm to the stage topic, encrypted with a rotating key CloudWatch may use, and e-mails alarmEmail', () => {
    const [[topicId, topic]] = ofType(prod, 'AWS::SNS::Topic');
    expect(topic.Properties.TopicName).toBe('despacho-prod-alarms');
    const [[keyId, key]] = ofType(prod, 'AWS::KMS::Key');
    expect(topic.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(JSON.stringify(key.Properties.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
    expect(ofType(prod, 'AWS::SNS::Subscription').map(([, s]) => s.Properties)).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } })]);
    expect(ofType(probe, 'AWS::SNS::Subscription')).toEqual([]);
    // Every alarm of the parent stack names the topic; those of the route stacks get it as a parameter.
    for (const [, alarm] of ofType(prod, 'AWS::CloudWatch::Alarm')) expect(alarm.Properties.AlarmActions).toHaveLength(1);
    expect(ofType(prod, 'AWS::CloudWatch::Alarm').length).toBeGreaterThanOrEqual(functionIds.length * 3 + Object.keys(queues).length * 2 + 6);
  });

  it('takes alarmEmail as one address or a comma list and refuses what is not an address', () => {
    expect(resolveStageConfig('dev', {}).alarmEmails).toEqual([]);
    expect(resolveStageConfig('dev', { alarmEmail: ' ops@example.com ' }).alarmEmails).toEqual(['ops@example.com']);
    expect(resolveStageConfig('dev', { alarmEmail: 'a@example.com,b@example.com' }).alarmEmails).toEqual(['a@example.com', 'b@example.com']);
    for (const bad of ['ops', 'a@b', 'a b@example.com']) expect(() => resolveStageConfig('dev', { alarmEmail: bad }), bad).toThrow(/alarmEmail/);
  });

  it('draws one dashboard per stage: traffic and errors by route group, latency, pipeline, webhooks, orders and queues', () => {
    const [[, dashboard]] = ofType(prod, 'AWS::CloudWatch::Dashboard');
    expect(dashboard.Properties.DashboardName).toBe('despacho-prod');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const title of ['Invocations by route group', 'Function errors and throttles by route group', 'API latency (ms)', 'Pipeline stage duration', 'Webhook deliveries', 'Queue depth', 'Dead-letter queues']) {
      expect(body, title).toContain(title);
    }
    for (const tag of new Set(deployedRoutes.map((r) => r.tag))) expect(body, tag).toContain(`\\"label\\":\\"${tag}\\"`);
    for (const name of ['ManifestsSubmitted', 'StageDuration', 'StageItemsPerSecond', 'WebhookDeliveries', 'OrdersCreated', 'RateLimited']) expect(body, name).toContain(name);
  });

  it('keeps every log group 365 days in prod', () => {
    const groups = ofType(prod, 'AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThanOrEqual(functionIds.length);
    for (const [, g] of groups) expect(g.Properties.RetentionInDays).toBe(365);
  });

  it('turns tracing off for a stage with DESPACHO_TRACING=off, and cdk-nag stays clean', () => {
    expect(parseTracing(undefined, 'prod')).toBe(true);
    expect(() => parseTracing('maybe', 'dev')).toThrow(/DESPACHO_TRACING/);
    const given = process.env.DESPACHO_TRACING;
    process.env.DESPACHO_TRACING = 'off';
    try {
      const off = stageApp('staging', { nag: false });
      const fn = Object.values(Template.fromStack(off.api).toJSON().Resources as Record<string, Resource>).find((r) => r.Type === 'AWS::Lambda::Function')!;
      expect(fn.Properties.TracingConfig).toBeUndefined();
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
      expect(nagFindings(off.app)).toEqual([]);
    } finally {
      if (given === undefined) delete process.env.DESPACHO_TRACING;
      else process.env.DESPACHO_TRACING = given;
    }
    const on = Object.values(prod.resources).find((r) => r.Type === 'AWS::Lambda::Function')!;
    expect(on.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    expect(on.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('true');
  });
});
