import { readFileSync, writeFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authorizer, fallback, pipelineTasks, queues, routes, workers } from '#catalog';
import type { RouteDef, WorkerDef } from '#catalog/types';
import { metricNamespace, metrics as metricDefs } from '#shared/metric-names';
import { alarmAreaMap, alarmAreaNames, compositeRuleLimits, ruleChunks, type AlarmArea } from '#lib/alarm-areas';
import { alarmThresholds } from '#lib/alarm-thresholds';
import type { BuildOptions, BuiltStage } from '#lib/app';
import { defaults } from '#lib/functions';
import { nagFindings } from '#lib/nag';
import { alarmTopic } from '#lib/observability';
import { parseTracing, resolveStageConfig, stageSettings } from '#lib/stage';
import { referenceProd, stageApp } from '#support/cdk';
import { alarmFigures, operatingDoc, operatingDocText } from '#scripts/generate-operating-doc';

/**
 * The stage's alarms, topic and dashboard are generated from the catalog: these tests read the
 * synthesized templates (the api stack and its nested route stacks side by side) and check that
 * every route, worker, pipeline task and queue the catalog declares is watched.
 */
type Resource = { Type: string; Properties: any; DependsOn?: string[] };

interface Synthesized extends BuiltStage {
  resources: Record<string, Resource>;
  /** Each template of the api stack: `api`, then one per nested route stack (by its construct id). */
  templates: Record<string, Record<string, Resource>>;
}

function synth(stage: string, opts: Omit<BuildOptions, 'app'> = {}): Synthesized {
  const built = stageApp(stage, opts);
  const resources: Record<string, Resource> = {};
  const templates: Record<string, Record<string, Resource>> = {};
  for (const stack of [built.api, ...Object.values(built.api.routeStacks), built.data]) {
    const own = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
    // The api stack's templates never share a logical id (the data stack may: it is looked at for its queues only).
    if (stack !== built.data) {
      for (const id of Object.keys(own)) if (id in resources) throw new Error(`logical id ${id} is in two templates`);
      templates[stack === built.api ? 'api' : stack.node.id] = own;
    }
    Object.assign(resources, own);
  }
  return { ...built, resources, templates };
}

/** The composite alarms of a stage by name: their rule's alarm names, and whether they notify. */
function compositesOf(s: Synthesized) {
  return Object.fromEntries(
    ofType(s, 'AWS::CloudWatch::CompositeAlarm').map(([id, r]) => [
      r.Properties.AlarmName as string,
      { id, rule: r.Properties.AlarmRule as string, names: [...(r.Properties.AlarmRule as string).matchAll(/ALARM\("([^"]+)"\)/g)].map((m) => m[1]), props: r.Properties, dependsOn: r.DependsOn ?? [] },
    ]),
  );
}

/** The metric alarms an area's composite reaches through its rule and the composites under it. */
function leavesOf(s: Synthesized, name: string): string[] {
  const composites = compositesOf(s);
  const metric = new Set(Object.keys(alarmsOf(s)));
  const out: string[] = [];
  const walk = (n: string) => {
    if (composites[n]) composites[n].names.forEach(walk);
    else if (metric.has(n)) out.push(n);
    else throw new Error(`${name} names ${n}, which is no alarm of the stage`);
  };
  walk(name);
  return out;
}

const ofType = (s: Synthesized, type: string) => Object.entries(s.resources).filter(([, r]) => r.Type === type);
const alarmsOf = (s: Synthesized) => Object.fromEntries(ofType(s, 'AWS::CloudWatch::Alarm').map(([, r]) => [r.Properties.AlarmName as string, r.Properties]));
const functionIdByName = (s: Synthesized, name: string) => ofType(s, 'AWS::Lambda::Function').find(([, r]) => r.Properties.FunctionName === name)?.[0];

/** A route and a worker the catalog does not have, to show a new entry is watched with no more work. */
const probeRoute: RouteDef = { id: 'ProbeRoute', method: 'GET', path: '/v1/probe', handler: 'http/system/health', summary: 'probe', tag: 'customs', auth: 'public', timeoutSeconds: 20 };
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
        // Only the areas' composite alarms notify.
        expect(alarm.AlarmActions, `${id} ${kind}`).toBeUndefined();
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

  it('watches a route and a worker added to the catalog with no more work, each in its area', () => {
    const alarms = alarmsOf(probe);
    for (const id of [probeRoute.id, probeWorker.id]) for (const kind of ['errors', 'throttles', 'duration']) expect(alarms[`despacho-dev-${id}-${kind}`], `${id} ${kind}`).toBeDefined();
    expect(alarms['despacho-dev-ProbeRoute-duration'].Threshold).toBe(16_000);
    // The route's alarms live in its group's nested stack, beside its function, with the composite that groups them for its area.
    const nested = Template.fromStack(probe.api.routeStacks.customs).toJSON().Resources as Record<string, Resource>;
    // Its three, and its live alias's rollback alarm (lib/rollout.ts), which is in no area.
    expect(Object.values(nested).filter((r) => r.Type === 'AWS::CloudWatch::Alarm').map((r) => r.Properties.AlarmName).sort()).toEqual(
      ['despacho-dev-ProbeRoute-duration', 'despacho-dev-ProbeRoute-errors', 'despacho-dev-ProbeRoute-live-errors', 'despacho-dev-ProbeRoute-throttles'],
    );
    expect(Object.values(nested).filter((r) => r.Type === 'AWS::CloudWatch::CompositeAlarm').map((r) => r.Properties.AlarmName)).toEqual(['despacho-dev-area-pipeline-routes-customs']);
    expect(leavesOf(probe, 'despacho-dev-area-pipeline')).toContain('despacho-dev-ProbeRoute-errors');
    // A worker is in the area of the queue it consumes.
    expect(leavesOf(probe, 'despacho-dev-area-webhooks')).toContain('despacho-dev-ProbeWorker-errors');
  });

  it('refuses a route tag that has no area, naming the tag and where to add it', () => {
    expect(() => stageApp('dev', { nag: false, catalog: { routes: [{ ...probeRoute, tag: 'probe' }], workers: [] } })).toThrow(
      /Route ProbeRoute: its tag "probe" has no alarm area; add it to alarmAreaMap.routeTags in lib\/alarm-areas.ts/,
    );
  });
});

describe('areas: one composite alarm each notifies', { timeout: 60_000 }, () => {
  const area = (a: AlarmArea) => `despacho-prod-area-${a}`;

  it('puts every alarm in exactly one area, and leaves none out', () => {
    const all = Object.keys(alarmsOf(prod));
    expect(all.length).toBeGreaterThanOrEqual(functionIds.length * 3 + Object.keys(queues).length * 2 + 6);
    const seen = new Map<string, AlarmArea[]>();
    for (const a of alarmAreaNames) for (const leaf of leavesOf(prod, area(a))) seen.set(leaf, [...(seen.get(leaf) ?? []), a]);
    // The live aliases' rollback alarms stop a rollout and notify nobody (lib/rollout.ts): one per function, in no area, without actions.
    const rollback = all.filter((n) => n.endsWith('-live-errors'));
    expect(rollback).toHaveLength(functionIds.length);
    for (const n of rollback) expect(alarmsOf(prod)[n].AlarmActions, n).toBeUndefined();
    expect(all.filter((n) => !seen.has(n) && !rollback.includes(n))).toEqual([]);
    expect([...seen].filter(([, areas]) => areas.length !== 1)).toEqual([]);
    expect(rollback.filter((n) => seen.has(n))).toEqual([]);
    // And each alarm is where lib/observability.ts says it is.
    for (const a of prod.api.observability.alarms) expect(seen.get(a.name), a.name).toEqual([a.area]);
  });

  it("keeps operating.md's alarms table and figures true to the thresholds and this synth (rewritten here when stale: commit it)", () => {
    const fresh = operatingDocText(alarmFigures(Object.keys(alarmsOf(prod)), Object.keys(compositesOf(prod))));
    const stale = readFileSync(operatingDoc, 'utf8') !== fresh;
    if (stale) writeFileSync(operatingDoc, fresh);
    expect(stale, 'docs/operators/operating.md had a stale alarms section: the test has rewritten it (npm run docs:operating); commit it').toBe(false);
  });

  it('maps the catalog to the areas as the table decides: tags, shipping routes, workers by queue, pipeline tasks, the edge', () => {
    const areaOf = new Map<string, AlarmArea>();
    for (const a of alarmAreaNames) for (const leaf of leavesOf(prod, area(a))) areaOf.set(leaf.replace(/^despacho-prod-/, ''), a);
    const expected: [string, AlarmArea][] = [
      ['Authorizer-errors', 'api'], ['Fallback-throttles', 'api'], ['api-5xx-rate', 'api'], ['api-p99-latency', 'api'], ['Health-errors', 'api'], ['AdminTokensCreate-errors', 'api'], ['MyTokensRevoke-errors', 'api'], ['DashboardPage-errors', 'api'],
      ['CouriersSubmit-errors', 'intake'], ['CouriersClientInfoUpdate-errors', 'intake'], ['ManifestsCreate-duration', 'intake'], ['ManifestStorageUpload-errors', 'intake'], ['DocumentsUpload-errors', 'intake'], ['ManifestIntake-errors', 'intake'], ['manifestIntake-dead-letters', 'intake'],
      ['PipelineStart-errors', 'pipeline'], ['PipelinePrepare-errors', 'pipeline'], ['PipelineFailed-duration', 'pipeline'], ['manifestPipeline-oldest-message', 'pipeline'], ['manifest-pipeline-executions-failed', 'pipeline'], ['CustomsCalculate-errors', 'pipeline'],
      ['WebhooksCreate-errors', 'webhooks'], ['WebhookFanout-errors', 'webhooks'], ['WebhookDelivery-throttles', 'webhooks'], ['webhookDelivery-dead-letters', 'webhooks'], ['webhooks-subscriptions-disabled', 'webhooks'],
      ['OrdersCreate-errors', 'orders'], ['InventorySet-errors', 'orders'], ['WarehousesPut-errors', 'orders'], ['MarketplacesConnect-errors', 'orders'], ['MarketplaceSync-duration', 'orders'], ['marketplaceSync-dead-letters', 'orders'], ['orders-marketplace-sync-errors', 'orders'],
      ['ShipmentLabel-errors', 'carriers'], ['TrackingUpdates-errors', 'carriers'], ['CarriersConnect-errors', 'carriers'], ['ShippingQuotes-errors', 'carriers'], ['TrackingPoll-errors', 'carriers'], ['trackingPoll-oldest-message', 'carriers'],
    ];
    for (const [alarm, a] of expected) expect(areaOf.get(alarm), alarm).toBe(a);
    // Every tag of the catalog and every queue has its line in the table.
    for (const tag of new Set(deployedRoutes.map((r) => r.tag))) expect(alarmAreaMap.routeTags[tag], tag).toBeDefined();
    expect(Object.keys(alarmAreaMap.queues).sort()).toEqual(Object.keys(queues).sort());
  });

  it('notifies the topic only through the six area composites, into alarm and back to OK', () => {
    const [[topicId]] = ofType(prod, 'AWS::SNS::Topic');
    const composites = compositesOf(prod);
    const notifying = Object.entries(composites).filter(([, c]) => c.props.AlarmActions);
    expect(notifying.map(([n]) => n).sort()).toEqual(alarmAreaNames.map(area).sort());
    for (const [n, c] of notifying) {
      expect(c.props.AlarmActions, n).toEqual([{ Ref: topicId }]);
      expect(c.props.OKActions, n).toEqual([{ Ref: topicId }]);
      expect(c.props.AlarmDescription, n).toMatch(/Runbook: https:\/\/\S+\/runbook\.md#area-\w+$/);
      expect(c.props.AlarmDescription.length, n).toBeLessThanOrEqual(1024);
    }
    for (const [n, c] of Object.entries(composites)) if (!c.props.AlarmActions) expect([c.props.OKActions, c.props.InsufficientDataActions], n).toEqual([undefined, undefined]);
    for (const [, alarm] of ofType(prod, 'AWS::CloudWatch::Alarm')) {
      expect([alarm.Properties.AlarmActions, alarm.Properties.OKActions, alarm.Properties.InsufficientDataActions], alarm.Properties.AlarmName).toEqual([undefined, undefined, undefined]);
    }
  });

  it("keeps every composite's rule within CloudWatch's 10,240 characters and 100 alarms, the largest area's included", () => {
    const composites = compositesOf(prod);
    const sizes = alarmAreaNames.map((a) => ({ area: a, alarms: leavesOf(prod, area(a)).length, rule: composites[area(a)].rule.length }));
    console.info(`alarms: ${Object.keys(alarmsOf(prod)).length}; composite alarms: ${Object.keys(composites).length}; per area (alarms reached, rule characters): ${sizes.map((x) => `${x.area} ${x.alarms}/${x.rule}`).join(', ')}`);
    // The largest area reaches more alarms than one rule may name: the nested stacks' composites group them.
    const largest = sizes.reduce((a, b) => (b.alarms > a.alarms ? b : a));
    expect(largest.alarms).toBeGreaterThan(compositeRuleLimits.maxAlarms);
    for (const [n, c] of Object.entries(composites)) {
      expect(c.rule.length, n).toBeLessThanOrEqual(compositeRuleLimits.maxLength);
      expect(c.names.length, n).toBeLessThanOrEqual(compositeRuleLimits.maxAlarms);
      expect(c.rule, n).toBe(c.names.map((x) => `ALARM("${x}")`).join(' OR '));
    }
  });

  it('waits in CloudFormation for every alarm a rule names: DependsOn it in the same template, or on the nested stack that holds it', () => {
    const whereIs = new Map<string, { template: string; id: string }>();
    for (const [template, res] of Object.entries(prod.templates)) {
      for (const [id, r] of Object.entries(res)) if (r.Type === 'AWS::CloudWatch::Alarm' || r.Type === 'AWS::CloudWatch::CompositeAlarm') whereIs.set(r.Properties.AlarmName, { template, id });
    }
    const nestedStackResource = (template: string) =>
      Object.entries(prod.templates.api).find(([id, r]) => r.Type === 'AWS::CloudFormation::Stack' && id.startsWith(`${template}NestedStack`))![0];
    for (const [n, c] of Object.entries(compositesOf(prod))) {
      const own = whereIs.get(n)!;
      for (const input of c.names) {
        const at = whereIs.get(input)!;
        expect(at, `${n} names ${input}`).toBeDefined();
        expect(c.dependsOn, `${n} -> ${input}`).toContain(at.template === own.template ? at.id : nestedStackResource(at.template));
      }
    }
  });
});

describe('composite rules past the limits', { timeout: 60_000 }, () => {
  // CloudWatch's limits are a module constant; these tests lower them to reach the parts on a small catalog.
  const given = { ...compositeRuleLimits };
  afterEach(() => Object.assign(compositeRuleLimits as { maxAlarms: number; maxLength: number }, given));

  it('splits names into runs in order, each within both limits, and refuses a name no rule can hold', () => {
    const names = Array.from({ length: 250 }, (_, i) => `despacho-staging-SomeRatherLongFunctionName${i}-throttles`);
    const chunks = ruleChunks(names);
    expect(chunks.flat()).toEqual(names);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(100);
      expect(c.map((n) => `ALARM("${n}")`).join(' OR ').length).toBeLessThanOrEqual(10_240);
    }
    expect(ruleChunks(names, { maxAlarms: 1000, maxLength: 300 }).every((c) => c.map((n) => `ALARM("${n}")`).join(' OR ').length <= 300)).toBe(true);
    expect(() => ruleChunks(['x'.repeat(20)], { maxAlarms: 10, maxLength: 20 })).toThrow(/longer than a composite rule may be/);
  });

  it('groups an area past the limits in parts, each within them, and still reaches every alarm', () => {
    Object.assign(compositeRuleLimits as { maxAlarms: number }, { maxAlarms: 4 });
    const small = synth('dev', { nag: false, catalog: { routes: deployedRoutes.filter((r) => r.tag === 'webhooks').slice(0, 3), workers: workers.filter((w) => w.queue.startsWith('webhook')) } });
    const composites = compositesOf(small);
    for (const [n, c] of Object.entries(composites)) expect(c.names.length, n).toBeLessThanOrEqual(4);
    expect(Object.keys(composites)).toEqual(expect.arrayContaining(['despacho-dev-area-webhooks-routes-webhooks-1', 'despacho-dev-area-webhooks-part1-1']));
    const leaves = leavesOf(small, 'despacho-dev-area-webhooks');
    expect(leaves.sort()).toEqual(small.api.observability.alarms.filter((a) => a.area === 'webhooks').map((a) => a.name).sort());
    expect(new Set(leaves).size).toBe(leaves.length);
  });
});

describe('notifications, dashboard and retention', { timeout: 60_000 }, () => {
  it('notifies the stage topic, encrypted with a rotating key CloudWatch may use, and e-mails alarmEmail', () => {
    const [[topicId, topic]] = ofType(prod, 'AWS::SNS::Topic');
    expect(topic.Properties.TopicName).toBe('despacho-prod-alarms');
    const [keyId, key] = ofType(prod, 'AWS::KMS::Key').find(([id]) => id.startsWith('ObservabilityAlarmsKey'))!;
    expect(topic.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(JSON.stringify(key.Properties.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
    expect(ofType(prod, 'AWS::SNS::Subscription').map(([, s]) => s.Properties)).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } })]);
    expect(ofType(probe, 'AWS::SNS::Subscription')).toEqual([]);
  });

  it('subscribes a list of addresses, or notifies an existing topic without creating one', () => {
    const settings = stageSettings('prod', process.env, referenceProd);
    const own = new Stack(new App(), 'Own');
    alarmTopic(own, settings, { emails: ['a@example.com', 'b@example.com', 'a@example.com'] });
    const ownT = Template.fromStack(own);
    ownT.resourceCountIs('AWS::SNS::Topic', 1);
    expect(Object.values(ownT.findResources('AWS::SNS::Subscription')).map((r) => r.Properties.Endpoint).sort()).toEqual(['a@example.com', 'b@example.com']);
    const existing = new Stack(new App(), 'Existing');
    const arn = 'arn:aws:sns:sa-east-1:111111111111:ops-alarms';
    expect(alarmTopic(existing, settings, { topicArn: arn, emails: ['a@example.com'] }).topicArn).toBe(arn);
    const existingT = Template.fromStack(existing);
    existingT.resourceCountIs('AWS::SNS::Topic', 0);
    existingT.resourceCountIs('AWS::KMS::Key', 0);
    existingT.hasResourceProperties('AWS::SNS::Subscription', { TopicArn: arn, Endpoint: 'a@example.com', Protocol: 'email' });
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
    for (const title of ['Alarm areas (these notify)', 'API alarms', 'Intake alarms', 'Pipeline alarms', 'Webhooks alarms', 'Orders and marketplaces alarms', 'Carriers alarms', 'Invocations by route group', 'Function errors and throttles by route group', 'API latency (ms)', 'Pipeline stage duration', 'Webhook deliveries', 'Queue depth', 'Dead-letter queues']) {
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
