import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as budgets from 'aws-cdk-lib/aws-budgets';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { QueueName } from '#catalog/types';
import { metricNamespace, metrics as metricDefs, type MetricDef, type MetricName } from '#shared/metric-names';
import { alarmAreaMap, alarmAreaNames, alarmAreas, anyInAlarm, routeArea, ruleChunks, type AlarmArea } from './alarm-areas';
import { alarmThresholds as th } from './alarm-thresholds';
import { pascal, type CatalogQueue, type DataStack } from './data';
import type { CatalogFunction } from './functions';
import { failedJobsRuleName } from './backup';
import { runbookLink } from './runbook-links';
import type { StageSettings } from './stage';

/** A function the stage watches: every route, the authorizer, the fallback, every worker and pipeline task. */
export interface WatchedFunction {
  /** The catalog id (the function is named `<namePrefix>-<id>`). */
  id: string;
  /** The route group on the dashboard: a route's catalog tag; `api` for the authorizer and fallback, `workers`, `pipeline`. */
  group: string;
  fn: CatalogFunction;
  /** Where its alarms are created: a route's own nested stack, so each stack keeps its resources. */
  scope: Construct;
}

export interface ObservabilityProps {
  settings: StageSettings;
  data: DataStack;
  /** The rule that matches drift detections which found a stage's stack DRIFTED (lib/drift.ts). */
  driftRule?: events.IRule;
  api: apigwv2.HttpApi;
  functions: WatchedFunction[];
  stateMachine: sfn.StateMachine;
}

/** What an alarm watches, for the runbook and the tests: `function`, `queue`, `api`, `pipeline`, `business`. */
export type AlarmSubject = 'function' | 'queue' | 'api' | 'pipeline' | 'business' | 'platform';

export interface StageAlarm {
  subject: AlarmSubject;
  /** The function id, queue name, or what the alarm is about. */
  target: string;
  /** The kind of alarm, as the runbook (docs/operators/runbook.md) names it. */
  kind: string;
  /** Its name, `<namePrefix>-<target>-<kind>`, which the composite rules use. */
  name: string;
  /** The area whose composite alarm it feeds (lib/alarm-areas.ts). */
  area: AlarmArea;
  alarm: cw.Alarm;
}

/** An alarm a composite may name: its name and its construct (for the dependency and the dashboard). */
interface RuleInput {
  name: string;
  alarm: cw.AlarmBase;
}

const period = Duration.minutes(th.periodMinutes);

/** The table operations the functions call (lambdas/infra), whose throttles and system errors are summed. */
export const dynamodbOperations = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'TransactGetItems'] as const;

/**
 * A stage's alarms, their SNS topic and its dashboard, generated from the catalog: every function
 * (routes, authorizer, fallback, workers, pipeline tasks) gets its error, throttle and duration
 * alarms, every queue its dead-letter and backlog alarms, so an entry added to the catalog is
 * watched without more work. Thresholds are data (lib/alarm-thresholds.ts).
 *
 * Only the areas notify: each alarm belongs to one area (lib/alarm-areas.ts), and one composite
 * alarm per area (`<namePrefix>-area-<area>`) is in alarm while any of its alarms is, and tells the
 * topic when it goes into alarm and back to OK. The per-function and per-queue alarms have no
 * actions of their own. What each area means and what to do is the runbook, docs/operators/runbook.md.
 */
export class Observability extends Construct {
  readonly topic: sns.ITopic;
  /** The account's monthly AWS Budget, where the stage sets `budgetMonthlyUsd`. */
  readonly budget?: budgets.CfnBudget;
  readonly dashboard: cw.Dashboard;
  readonly alarms: StageAlarm[] = [];
  /** The composite alarm of each area that has alarms, and the alarms its rule names. */
  readonly areas: Partial<Record<AlarmArea, { composite: cw.CompositeAlarm; inputs: RuleInput[] }>> = {};
  private readonly action: SnsAction;
  private readonly settings: StageSettings;
  private readonly queues: [QueueName, CatalogQueue][];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const { settings, data, api, functions, stateMachine } = props;
    this.settings = settings;
    this.queues = Object.entries(data.queues) as [QueueName, CatalogQueue][];

    // --- Notifications ----------------------------------------------------------------------
    // The stage configuration's subscribers (lib/stages.ts, -c alarmEmail / alarmTopicArn).
    this.topic = alarmTopic(this, settings, { emails: settings.config.alarmEmails, topicArn: settings.config.alarmTopicArn, httpsEndpoints: settings.config.alarmHttpsEndpoints });
    this.action = new SnsAction(this.topic);
    if (settings.config.budgetMonthlyUsd) this.budget = accountBudget(this, settings, this.topic, !settings.config.alarmTopicArn);

    // --- Alarms -------------------------------------------------------------------------------
    for (const f of functions) this.functionAlarms(f);
    for (const [name, q] of this.queues) this.queueAlarms(name, q);
    this.apiAlarms(api);
    this.platformAlarms(data, props.driftRule);
    this.add(alarmAreaMap.pipeline, 'pipeline', 'manifest-pipeline', 'executions-failed', this, 'PipelineFailedAlarm', {
      metric: stateMachine.metricFailed({ period, statistic: 'Sum' }),
      threshold: th.pipeline.executionsFailed,
      description: 'Manifest pipeline runs failed: a manifest was marked failed after its retries.',
    });
    this.add(alarmAreaMap.pipeline, 'pipeline', 'manifest-pipeline', 'executions-timed-out', this, 'PipelineTimedOutAlarm', {
      metric: stateMachine.metricTimedOut({ period, statistic: 'Sum' }),
      threshold: th.pipeline.executionsTimedOut,
      description: 'Manifest pipeline runs hit the 6 h timeout.',
    });
    this.add(alarmAreaMap.business.webhooks, 'business', 'webhooks', 'subscriptions-disabled', this, 'WebhookSubscriptionsDisabledAlarm', {
      metric: this.business('WebhookSubscriptionsDisabled'),
      threshold: th.business.webhookSubscriptionsDisabled,
      description: 'Webhook subscriptions were disabled after consecutive failed deliveries (or a 410).',
    });
    this.add(alarmAreaMap.business.orders, 'business', 'orders', 'marketplace-sync-errors', this, 'MarketplaceSyncErrorsAlarm', {
      metric: this.businessTotal('MarketplaceSyncErrors', 'sync errors'),
      threshold: th.business.marketplaceSyncErrors,
      description: 'Marketplace syncs ended in error (one account and channel each).',
    });

    // --- Areas ---------------------------------------------------------------------------------
    for (const area of alarmAreaNames) this.areaAlarm(area);

    this.dashboard = this.buildDashboard(props);
  }

  /**
   * An alarm of an area, without actions of its own (its area's composite notifies); missing data
   * (no traffic) never breaches.
   */
  private add(area: AlarmArea, subject: AlarmSubject, target: string, kind: string, scope: Construct, id: string, o: { metric: cw.IMetric; threshold: number; description: string; operator?: cw.ComparisonOperator }) {
    const name = `${this.settings.namePrefix}-${target}-${kind}`;
    const alarm = new cw.Alarm(scope, id, {
      alarmName: name,
      alarmDescription: `${o.description} Area: ${alarmAreas[area].title}. Runbook: ${runbookLink(this.settings, kind)}`,
      metric: o.metric,
      threshold: o.threshold,
      comparisonOperator: o.operator ?? cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: th.evaluationPeriods,
      treatMissingData: cw.TreatMissingData.NOT_BREACHING,
    });
    this.alarms.push({ subject, target, kind, name, area, alarm });
    return alarm;
  }

  /**
   * The area's composite alarm, `<namePrefix>-area-<area>`, in alarm while any of the area's alarms
   * is. Its rule names alarms by name (no ARN, so no reference across stacks) and CloudWatch lets a
   * rule name at most 100 alarms in 10,240 characters: the alarms of a nested route stack are first
   * grouped by a composite in that stack (`<namePrefix>-area-<area>-<stack>`), and any list still
   * past the limits is split into parts (`-1`, `-2`, ...). Each composite waits in CloudFormation
   * for the alarms it names (DependsOn, or on their nested stack).
   */
  private areaAlarm(area: AlarmArea) {
    const members = this.alarms.filter((a) => a.area === area);
    if (members.length === 0) return;
    const parent = Stack.of(this);
    const name = `${this.settings.namePrefix}-area-${area}`;
    const byStack = new Map<Stack, RuleInput[]>();
    for (const m of members) {
      const stack = Stack.of(m.alarm);
      if (!byStack.has(stack)) byStack.set(stack, []);
      byStack.get(stack)!.push({ name: m.name, alarm: m.alarm });
    }
    let inputs: RuleInput[] = [];
    for (const [stack, list] of byStack) {
      if (stack === parent) inputs.push(...list);
      else inputs.push(...this.grouped(stack, `${pascal(area)}Area${stack.node.id}`, area, `${name}-${kebab(stack.node.id)}`, list));
    }
    for (let level = 1; ruleChunks(inputs.map((i) => i.name)).length > 1; level++) {
      inputs = this.grouped(this, `${pascal(area)}AreaPart${level}`, area, `${name}-part${level}`, inputs);
    }

    const { title, covers } = alarmAreas[area];
    const composite = new cw.CompositeAlarm(this, `${pascal(area)}AreaAlarm`, {
      compositeAlarmName: name,
      alarmDescription: `${title}: ${covers}. In alarm while any of its alarms is; the notification's reason names the one that fired. Runbook: ${runbookLink(this.settings, `area-${area}`)}`,
      alarmRule: cw.AlarmRule.fromString(anyInAlarm(inputs.map((i) => i.name))),
    });
    composite.node.addDependency(...inputs.map((i) => i.alarm));
    composite.addAlarmAction(this.action);
    composite.addOkAction(this.action);
    this.areas[area] = { composite, inputs };
  }

  /**
   * The inputs grouped by composites without actions, created in `scope`: one named `baseName`
   * (construct id `id`), or parts `baseName-1`, ... (`id1`, ...) when they exceed a rule's limits.
   */
  private grouped(scope: Construct, id: string, area: AlarmArea, baseName: string, inputs: RuleInput[]): RuleInput[] {
    const byName = new Map(inputs.map((i) => [i.name, i]));
    const chunks = ruleChunks(inputs.map((i) => i.name));
    return chunks.map((names, i) => {
      const name = chunks.length === 1 ? baseName : `${baseName}-${i + 1}`;
      const alarm = new cw.CompositeAlarm(scope, chunks.length === 1 ? id : `${id}${i + 1}`, {
        compositeAlarmName: name,
        alarmDescription: `Part of the ${alarmAreas[area].title} area (${this.settings.namePrefix}-area-${area}), which notifies: in alarm while any of these ${names.length} alarms is.`,
        alarmRule: cw.AlarmRule.fromString(anyInAlarm(names)),
      });
      alarm.node.addDependency(...names.map((n) => byName.get(n)!.alarm));
      return { name, alarm };
    });
  }

  /**
   * The alarms that roll a rollout of this function back, by name (lib/rollout.ts): the composite
   * of its area and, for what answers HTTP (a route, the fallback, the authorizer), the API's 5xx
   * rate, since a route's handled failures are 500 answers rather than function errors.
   */
  rollbackAlarmNames(f: WatchedFunction): string[] {
    const area = this.functionArea(f);
    if (!this.areas[area]) throw new Error(`${f.id}: its area ${area} has no composite alarm`);
    const names = [`${this.settings.namePrefix}-area-${area}`];
    if (f.group !== 'workers' && f.group !== 'pipeline') {
      const serverErrors = this.alarms.find((a) => a.target === 'api' && a.kind === '5xx-rate');
      if (!serverErrors) throw new Error("The API's 5xx-rate alarm is missing");
      if (area !== alarmAreaMap.edge) names.push(serverErrors.name);
    }
    return names;
  }

  /** The area of a watched function: its route's (tag or id), the edge's, the pipeline's, or a worker's queue's. */
  private functionArea(f: WatchedFunction): AlarmArea {
    if (f.group === 'api') return alarmAreaMap.edge;
    if (f.group === 'pipeline') return alarmAreaMap.pipeline;
    if (f.group === 'workers') return alarmAreaMap.queues[this.workerQueue(f)];
    return routeArea(f.id, f.group);
  }

  /** The catalog queue a worker consumes, read from its SQS event source. */
  private workerQueue(f: WatchedFunction): QueueName {
    const sources = f.fn.node.findAll().filter((c): c is lambda.CfnEventSourceMapping => c instanceof lambda.CfnEventSourceMapping).map((m) => m.eventSourceArn);
    const found = this.queues.filter(([, q]) => sources.includes(q.queue.queueArn));
    if (found.length !== 1) throw new Error(`Worker ${f.id}: expected one catalog queue as its event source, found ${found.length}`);
    return found[0][0];
  }

  private functionAlarms(f: WatchedFunction) {
    const { id, fn, scope } = f;
    const area = this.functionArea(f);
    const timeoutMs = (fn.fn.timeout?.toSeconds() ?? 3) * 1000;
    this.add(area, 'function', id, 'errors', scope, `${id}ErrorsAlarm`, {
      metric: fn.fn.metricErrors({ period, statistic: 'Sum' }),
      threshold: th.functions.errors,
      description: `${id} failed invocations (uncaught errors, timeouts, crashes).`,
    });
    this.add(area, 'function', id, 'throttles', scope, `${id}ThrottlesAlarm`, {
      metric: fn.fn.metricThrottles({ period, statistic: 'Sum' }),
      threshold: th.functions.throttles,
      description: `${id} invocations throttled (account or reserved concurrency reached).`,
    });
    this.add(area, 'function', id, 'duration', scope, `${id}DurationAlarm`, {
      metric: fn.fn.metricDuration({ period, statistic: 'Maximum' }),
      threshold: Math.round(timeoutMs * th.functions.durationOfTimeout),
      description: `${id} ran for ${Math.round(th.functions.durationOfTimeout * 100)}% of its ${timeoutMs / 1000} s timeout or more.`,
    });
  }

  private queueAlarms(name: QueueName, q: CatalogQueue) {
    const area = alarmAreaMap.queues[name];
    this.add(area, 'queue', name, 'dead-letters', this, `${pascal(name)}DeadLettersAlarm`, {
      metric: q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      threshold: th.queues.deadLetterMessages,
      description: `Messages of ${name} moved to its dead-letter queue after ${q.def.maxReceiveCount} failed receives.`,
    });
    const seconds = th.queues.oldestMessageSeconds[name] ?? Math.max(300, 2 * q.def.visibilityTimeoutSeconds);
    this.add(area, 'queue', name, 'oldest-message', this, `${pascal(name)}OldestMessageAlarm`, {
      metric: q.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
      threshold: seconds,
      description: `The oldest message of ${name} has waited ${seconds} s or more: a backlog or a stuck worker.`,
    });
  }

  private apiAlarms(api: apigwv2.HttpApi) {
    const requests = api.metricCount({ period, statistic: 'Sum' });
    const errors = api.metricServerError({ period, statistic: 'Sum' });
    this.add(alarmAreaMap.edge, 'api', 'api', '5xx-rate', this, 'Api5xxRateAlarm', {
      metric: new cw.MathExpression({
        expression: `IF(requests >= ${th.api.minRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { requests, errors },
        period,
        label: '5xx (% of requests)',
      }),
      threshold: th.api.serverErrorPercent,
      description: `${th.api.serverErrorPercent}% or more of the API's requests answered 5xx (with ${th.api.minRequests} requests or more).`,
    });
    this.add(alarmAreaMap.edge, 'api', 'api', 'p99-latency', this, 'ApiLatencyAlarm', {
      metric: api.metricLatency({ period, statistic: 'p99' }),
      threshold: th.api.p99LatencyMs,
      description: `The API's p99 latency reached ${th.api.p99LatencyMs} ms.`,
    });
  }

  /**
   * What every area stands on, in the api area: the table's throttled requests and system errors
   * (summed over the operations the functions call: an alarm's math takes at most 10 metrics), the
   * account's claimed Lambda concurrency against its quota, backup and copy jobs that failed
   * (where the stage backs up), and stacks found drifted.
   */
  private platformAlarms(data: DataStack, driftRule?: events.IRule) {
    const area = alarmAreaMap.platform;
    const table = data.names.table;
    const byOperation = (metricName: string) => {
      const usingMetrics = Object.fromEntries(
        dynamodbOperations.map((op, i) => [`o${i}`, new cw.Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: table, Operation: op }, period, statistic: 'Sum' })]),
      );
      return new cw.MathExpression({ expression: `SUM([${Object.keys(usingMetrics).join(',')}])`, usingMetrics, period, label: metricName });
    };
    this.add(area, 'platform', 'dynamodb', 'throttled-requests', this, 'DynamodbThrottledRequestsAlarm', {
      metric: byOperation('ThrottledRequests'),
      threshold: th.platform.dynamodbThrottledRequests,
      description: `The table ${table} throttled ${th.platform.dynamodbThrottledRequests} requests or more (a hot key, or a table or account limit).`,
    });
    this.add(area, 'platform', 'dynamodb', 'system-errors', this, 'DynamodbSystemErrorsAlarm', {
      metric: byOperation('SystemErrors'),
      threshold: th.platform.dynamodbSystemErrors,
      description: `DynamoDB failed requests to ${table} with errors of its own (HTTP 500).`,
    });
    const quota = this.settings.config.accountConcurrencyQuota;
    const near = Math.floor(quota * th.platform.accountConcurrencyOfQuota);
    this.add(area, 'platform', 'account', 'concurrency-near-quota', this, 'AccountConcurrencyAlarm', {
      // Claimed: reserved concurrency counts whether it runs or not, so this is what a new invocation competes for.
      metric: new cw.Metric({ namespace: 'AWS/Lambda', metricName: 'ClaimedAccountConcurrency', period, statistic: 'Maximum' }),
      threshold: near,
      description: `The account's claimed Lambda concurrency reached ${near} of its quota of ${quota} (accountConcurrencyQuota): past the quota every function is throttled.`,
    });
    if (data.tableBackup) {
      this.add(area, 'platform', 'backup', 'jobs-failed', this, 'BackupJobsFailedAlarm', {
        metric: new cw.Metric({ namespace: 'AWS/Events', metricName: 'MatchedEvents', dimensionsMap: { RuleName: failedJobsRuleName(this.settings) }, period, statistic: 'Sum' }),
        threshold: th.platform.backupJobsFailed,
        description: `An AWS Backup backup or copy job failed, was aborted or expired (rule ${failedJobsRuleName(this.settings)}).`,
      });
    }
    if (driftRule) {
      this.add(area, 'platform', 'stacks', 'drift', this, 'StacksDriftAlarm', {
        metric: new cw.Metric({ namespace: 'AWS/Events', metricName: 'MatchedEvents', dimensionsMap: { RuleName: driftRule.ruleName }, period, statistic: 'Sum' }),
        threshold: th.platform.stacksDrifted,
        description: 'A daily drift detection found a stack of the stage changed outside CloudFormation.',
      });
    }
  }

  /** A business metric (lambdas/shared/metric-names.ts) with the dimensions the services send. */
  private business(name: MetricName, by?: string, o: { statistic?: string; label?: string } = {}): cw.Metric {
    const def: MetricDef = metricDefs[name];
    const dimensionsMap: Record<string, string> = { service: 'despacho', stage: this.settings.stage, group: def.group };
    if (def.by && by !== undefined) dimensionsMap[def.by.dimension] = by;
    return new cw.Metric({ namespace: metricNamespace, metricName: name, dimensionsMap, period, statistic: o.statistic ?? 'Sum', label: o.label ?? by ?? name });
  }

  /** A metric with a breakdown, summed over every value it may take (alarms cannot SEARCH). */
  private businessTotal(name: MetricName, label: string): cw.IMetric {
    const def: MetricDef = metricDefs[name];
    const values = [...(def.by?.values ?? []), 'other'];
    const usingMetrics = Object.fromEntries(values.map((v, i) => [`v${i}`, this.business(name, v)]));
    return new cw.MathExpression({ expression: `SUM([${Object.keys(usingMetrics).join(',')}])`, usingMetrics, period, label });
  }

  /** Each value of a metric's breakdown, one line each. */
  private businessBy(name: MetricName, o: { statistic?: string } = {}): cw.Metric[] {
    return (metricDefs[name] as MetricDef).by!.values.map((v) => this.business(name, v, o));
  }

  private buildDashboard({ settings, data, api, functions, stateMachine }: ObservabilityProps): cw.Dashboard {
    const lambdaMetric = (metricName: string, fid: string) =>
      new cw.Metric({ namespace: 'AWS/Lambda', metricName, dimensionsMap: { FunctionName: `${settings.namePrefix}-${fid}` }, period, statistic: 'Sum' });
    const groups = [...new Set(functions.map((f) => f.group))];
    /** One line per route group: the sum of its functions' metric (function names are known at synth). */
    const byGroup = (metricName: string, id: string, label = (g: string) => g) =>
      groups.map((g, gi) => {
        const members = functions.filter((f) => f.group === g);
        const usingMetrics = Object.fromEntries(members.map((f, i) => [`${id}${gi}f${i}`, lambdaMetric(metricName, f.id)]));
        return new cw.MathExpression({ expression: `SUM([${Object.keys(usingMetrics).join(',')}])`, usingMetrics, period, label: label(g) });
      });
    const graph = (title: string, left: cw.IMetric[], o: Partial<cw.GraphWidgetProps> = {}) => new cw.GraphWidget({ title, left, width: 12, height: 6, ...o });
    const queueEntries = Object.entries(data.queues) as [QueueName, CatalogQueue][];

    const dashboard = new cw.Dashboard(this, 'Dashboard', { dashboardName: settings.namePrefix, defaultInterval: Duration.hours(6) });
    dashboard.addWidgets(
      new cw.TextWidget({
        markdown: `# Despacho ${settings.stage}\nOne composite alarm per area notifies the SNS topic (\`${settings.namePrefix}-area-<area>\`); the per-function and per-queue alarms below each area feed it. What each means and what to do: docs/operators/runbook.md. Business metrics: namespace \`${metricNamespace}\`, dimension stage=${settings.stage}.`,
        width: 24,
        height: 2,
      }),
    );
    // The areas, then each area's inputs: its alarms in this stack, and the composites that group
    // the alarms of each nested route stack (named, so no reference crosses into those stacks).
    const areaNames = alarmAreaNames.filter((a) => this.areas[a]);
    dashboard.addWidgets(new cw.AlarmStatusWidget({ title: 'Alarm areas (these notify)', alarms: areaNames.map((a) => this.areas[a]!.composite), width: 24, height: 3 }));
    const inputWidgets = areaNames.map((a) => {
      const alarms = this.areas[a]!.inputs.map((i, n) => (Stack.of(i.alarm) === Stack.of(this) ? i.alarm : cw.Alarm.fromAlarmName(this, `${pascal(a)}AreaInput${n}`, i.name)));
      return new cw.AlarmStatusWidget({ title: `${alarmAreas[a].title} alarms`, alarms, width: 8, height: 6, sortBy: cw.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP });
    });
    for (let i = 0; i < inputWidgets.length; i += 3) dashboard.addWidgets(...inputWidgets.slice(i, i + 3));
    dashboard.addWidgets(
      graph('API requests and errors', [api.metricCount({ period, statistic: 'Sum', label: 'requests' })], {
        right: [api.metricClientError({ period, statistic: 'Sum', label: '4xx' }), api.metricServerError({ period, statistic: 'Sum', label: '5xx' })],
      }),
      graph('API latency (ms)', [api.metricLatency({ period, statistic: 'p50', label: 'p50' }), api.metricLatency({ period, statistic: 'p99', label: 'p99' })], {
        leftAnnotations: [{ value: th.api.p99LatencyMs, label: 'p99 alarm' }],
      }),
    );
    dashboard.addWidgets(
      graph('Invocations by route group', byGroup('Invocations', 'i')),
      graph('Function errors and throttles by route group', byGroup('Errors', 'e'), { right: byGroup('Throttles', 't', (g) => `${g} throttles`) }),
    );
    dashboard.addWidgets(
      graph('Manifests', [this.businessTotal('ManifestsSubmitted', 'submitted'), this.business('ManifestsCompleted', undefined, { label: 'completed' }), this.business('ManifestsFailed', undefined, { label: 'failed' })], {
        right: [this.business('ItemsAccepted', undefined, { label: 'items accepted' })],
      }),
      graph('Pipeline stage duration (avg ms per page)', this.businessBy('StageDuration', { statistic: 'Average' }), {
        right: this.businessBy('StageItemsPerSecond', { statistic: 'Average' }).map((m) => m.with({ label: `${m.dimensions?.pipelineStage} items/s` })),
      }),
    );
    dashboard.addWidgets(
      graph('Pipeline runs', [stateMachine.metricSucceeded({ period, statistic: 'Sum', label: 'succeeded' }), stateMachine.metricFailed({ period, statistic: 'Sum', label: 'failed' }), stateMachine.metricTimedOut({ period, statistic: 'Sum', label: 'timed out' })]),
      graph('Customs checks and classification', [this.business('TaxIdsInvalid', undefined, { label: 'tax ids invalid' }), this.business('QuotaReservationsRefused', undefined, { label: 'quota refused' }), this.business('LowConfidenceClassifications', undefined, { label: 'low confidence' })], {
        right: this.businessBy('ItemsClassified'),
      }),
    );
    dashboard.addWidgets(
      graph('Webhook deliveries', this.businessBy('WebhookDeliveries'), { right: [this.business('WebhookSubscriptionsDisabled', undefined, { label: 'subscriptions disabled' })] }),
      graph('Orders and marketplace syncs', [...this.businessBy('OrdersCreated'), ...this.businessBy('OrdersShipped').map((m) => m.with({ label: `shipped (${m.dimensions?.source})` }))], {
        right: [this.businessTotal('MarketplaceSyncErrors', 'sync errors')],
      }),
    );
    dashboard.addWidgets(
      graph('Queue depth (visible messages)', queueEntries.map(([name, q]) => q.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: name }))),
      graph('Dead-letter queues and oldest message (s)', queueEntries.map(([name, q]) => q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: `${name} DLQ` })), {
        right: queueEntries.map(([name, q]) => q.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: `${name} oldest` })),
      }),
    );
    dashboard.addWidgets(
      graph('Document transitions', this.businessBy('DocumentTransitions')),
      graph('429s by rate group', this.businessBy('RateLimited')),
    );
    return dashboard;
  }
}

/** `RoutesCouriers` -> `routes-couriers` (the stack part of an intermediate composite's name). */
function kebab(id: string): string {
  return id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/**
 * The topic the areas notify. An existing one (`topicArn`: its policy, and its key's if encrypted,
 * must let cloudwatch.amazonaws.com publish) is used as it is; otherwise the stage's own
 * `<namePrefix>-alarms`, encrypted with a key of its own: CloudWatch can publish to an encrypted
 * topic only with a customer managed key whose policy lets it (the AWS managed SNS key does not).
 * Each address of `emails` is subscribed (AWS e-mails a confirmation first).
 */
export function alarmTopic(scope: Construct, settings: StageSettings, o: { emails?: readonly string[]; topicArn?: string; httpsEndpoints?: readonly string[]; topicName?: string } = {}): sns.ITopic {
  const emails = [...new Set(o.emails ?? [])];
  const subscribe = (topic: sns.ITopic) => {
    for (const email of emails) topic.addSubscription(new EmailSubscription(email));
    for (const url of new Set(o.httpsEndpoints ?? [])) topic.addSubscription(new UrlSubscription(url, { protocol: sns.SubscriptionProtocol.HTTPS }));
  };
  if (o.topicArn) {
    const topic = sns.Topic.fromTopicArn(scope, 'AlarmsTopic', o.topicArn);
    subscribe(topic);
    return topic;
  }
  const key = new kms.Key(scope, 'AlarmsKey', {
    description: `Encrypts the ${settings.namePrefix} alarm notifications`,
    enableKeyRotation: true,
    removalPolicy: settings.logRemovalPolicy,
    pendingWindow: Duration.days(7),
  });
  const cloudwatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
  const sameAccount = { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } };
  key.addToResourcePolicy(new iam.PolicyStatement({ principals: [cloudwatch], actions: ['kms:Decrypt', 'kms:GenerateDataKey*'], resources: ['*'], conditions: sameAccount }));
  const topic = new sns.Topic(scope, 'AlarmsTopic', {
    topicName: o.topicName ?? `${settings.namePrefix}-alarms`,
    displayName: `Despacho ${settings.stage} alarms`,
    masterKey: key,
    enforceSSL: true,
  });
  topic.addToResourcePolicy(new iam.PolicyStatement({ principals: [cloudwatch], actions: ['sns:Publish'], resources: [topic.topicArn], conditions: sameAccount }));
  subscribe(topic);
  return topic;
}

/** When the budget notifies: forecast to pass 80% of the month's amount, and actually past it. */
export const budgetNotifications = [
  { notificationType: 'FORECASTED', threshold: 80 },
  { notificationType: 'ACTUAL', threshold: 100 },
] as const;

/**
 * A monthly cost budget of the account (`budgetMonthlyUsd`), which notifies the alarm topic and
 * `budgetEmails`. It covers the whole account: one account per stage is the documented default
 * (docs/operators/deploy.md), so the account's cost is the stage's. With the stage's own topic
 * (`ownTopic`), its policy and its key's let AWS Budgets publish; an `alarmTopicArn` must let
 * budgets.amazonaws.com publish itself.
 */
function accountBudget(scope: Construct, settings: StageSettings, topic: sns.ITopic, ownTopic: boolean): budgets.CfnBudget {
  if (ownTopic) {
    const principal = new iam.ServicePrincipal('budgets.amazonaws.com');
    const sameAccount = { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } };
    topic.addToResourcePolicy(new iam.PolicyStatement({ principals: [principal], actions: ['sns:Publish'], resources: [topic.topicArn], conditions: sameAccount }));
    (topic as sns.Topic).masterKey?.addToResourcePolicy(new iam.PolicyStatement({ principals: [principal], actions: ['kms:Decrypt', 'kms:GenerateDataKey*'], resources: ['*'], conditions: sameAccount }));
  }
  const subscribers = [{ subscriptionType: 'SNS', address: topic.topicArn }, ...settings.config.budgetEmails.map((address) => ({ subscriptionType: 'EMAIL', address }))];
  return new budgets.CfnBudget(scope, 'Budget', {
    budget: {
      budgetName: `${settings.namePrefix}-monthly`,
      budgetType: 'COST',
      timeUnit: 'MONTHLY',
      budgetLimit: { amount: settings.config.budgetMonthlyUsd!, unit: 'USD' },
    },
    notificationsWithSubscribers: budgetNotifications.map((n) => ({
      notification: { notificationType: n.notificationType, comparisonOperator: 'GREATER_THAN', threshold: n.threshold, thresholdType: 'PERCENTAGE' },
      subscribers,
    })),
  });
}
