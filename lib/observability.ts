import { Aws, Duration } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { QueueName } from '../lambdas/catalog-types';
import { metricNamespace, metrics as metricDefs, type MetricDef, type MetricName } from '../lambdas/shared/metric-names';
import { alarmThresholds as th } from './alarm-thresholds';
import { pascal, type CatalogQueue, type DataStack } from './data';
import type { CatalogFunction } from './functions';
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
  api: apigwv2.HttpApi;
  functions: WatchedFunction[];
  stateMachine: sfn.StateMachine;
}

/** What an alarm watches, for the runbook and the tests: `function`, `queue`, `api`, `pipeline`, `business`. */
export type AlarmSubject = 'function' | 'queue' | 'api' | 'pipeline' | 'business';

export interface StageAlarm {
  subject: AlarmSubject;
  /** The function id, queue name, or what the alarm is about. */
  target: string;
  /** The kind of alarm, as the README's runbook names it. */
  kind: string;
  alarm: cw.Alarm;
}

const period = Duration.minutes(th.periodMinutes);

/**
 * A stage's alarms, their SNS topic and its dashboard, generated from the catalog: every function
 * (routes, authorizer, fallback, workers, pipeline tasks) gets its error, throttle and duration
 * alarms, every queue its dead-letter and backlog alarms, so an entry added to the catalog is
 * watched without more work. Thresholds are data (lib/alarm-thresholds.ts); what each alarm means
 * and what to do is the README's "Operating" runbook.
 */
export class Observability extends Construct {
  /** The stage's own topic, or the existing one the configuration names (`alarmTopicArn`). */
  readonly topic: sns.ITopic;
  readonly dashboard: cw.Dashboard;
  readonly alarms: StageAlarm[] = [];
  private readonly action: SnsAction;
  private readonly settings: StageSettings;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const { settings, data, api, functions, stateMachine } = props;
    this.settings = settings;

    // --- Notifications ----------------------------------------------------------------------
    // An existing topic (alarmTopicArn: the on-call tool's) replaces the stage's own; the
    // configuration's e-mails are subscribed to whichever topic the alarms notify.
    this.topic = settings.config.alarmTopicArn ? sns.Topic.fromTopicArn(this, 'AlarmsTopic', settings.config.alarmTopicArn) : this.ownTopic(settings);
    for (const email of settings.config.alarmEmails) this.topic.addSubscription(new EmailSubscription(email));
    this.action = new SnsAction(this.topic);

    // --- Alarms -------------------------------------------------------------------------------
    for (const f of functions) this.functionAlarms(f);
    for (const [name, q] of Object.entries(data.queues) as [QueueName, CatalogQueue][]) this.queueAlarms(name, q);
    this.apiAlarms(api);
    this.add('pipeline', 'manifest-pipeline', 'executions-failed', this, 'PipelineFailedAlarm', {
      metric: stateMachine.metricFailed({ period, statistic: 'Sum' }),
      threshold: th.pipeline.executionsFailed,
      description: 'Manifest pipeline runs failed: a manifest was marked failed after its retries.',
    });
    this.add('pipeline', 'manifest-pipeline', 'executions-timed-out', this, 'PipelineTimedOutAlarm', {
      metric: stateMachine.metricTimedOut({ period, statistic: 'Sum' }),
      threshold: th.pipeline.executionsTimedOut,
      description: 'Manifest pipeline runs hit the 6 h timeout.',
    });
    this.add('business', 'webhooks', 'subscriptions-disabled', this, 'WebhookSubscriptionsDisabledAlarm', {
      metric: this.business('WebhookSubscriptionsDisabled'),
      threshold: th.business.webhookSubscriptionsDisabled,
      description: 'Webhook subscriptions were disabled after consecutive failed deliveries (or a 410).',
    });
    this.add('business', 'orders', 'marketplace-sync-errors', this, 'MarketplaceSyncErrorsAlarm', {
      metric: this.businessTotal('MarketplaceSyncErrors', 'sync errors'),
      threshold: th.business.marketplaceSyncErrors,
      description: 'Marketplace syncs ended in error (one account and channel each).',
    });

    this.dashboard = this.buildDashboard(props);
  }

  /**
   * The stage's alarm topic, encrypted with a key of its own: CloudWatch can publish to an
   * encrypted topic only with a customer managed key whose policy lets it (the AWS managed SNS key does not).
   */
  private ownTopic(settings: StageSettings): sns.Topic {
    const key = new kms.Key(this, 'AlarmsKey', {
      description: `Encrypts the ${settings.namePrefix} alarm notifications`,
      enableKeyRotation: true,
      removalPolicy: settings.logRemovalPolicy,
      pendingWindow: Duration.days(7),
    });
    const cloudwatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
    const sameAccount = { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } };
    key.addToResourcePolicy(new iam.PolicyStatement({ principals: [cloudwatch], actions: ['kms:Decrypt', 'kms:GenerateDataKey*'], resources: ['*'], conditions: sameAccount }));
    const topic = new sns.Topic(this, 'AlarmsTopic', {
      topicName: `${settings.namePrefix}-alarms`,
      displayName: `Despacho ${settings.stage} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    topic.addToResourcePolicy(new iam.PolicyStatement({ principals: [cloudwatch], actions: ['sns:Publish'], resources: [topic.topicArn], conditions: sameAccount }));
    return topic;
  }

  /** An alarm that notifies the topic; missing data (no traffic) never breaches. */
  private add(subject: AlarmSubject, target: string, kind: string, scope: Construct, id: string, o: { metric: cw.IMetric; threshold: number; description: string; operator?: cw.ComparisonOperator }) {
    const alarm = new cw.Alarm(scope, id, {
      alarmName: `${this.settings.namePrefix}-${target}-${kind}`,
      alarmDescription: `${o.description} Runbook: README, "Operating", ${kind}.`,
      metric: o.metric,
      threshold: o.threshold,
      comparisonOperator: o.operator ?? cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: th.evaluationPeriods,
      treatMissingData: cw.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    this.alarms.push({ subject, target, kind, alarm });
    return alarm;
  }

  private functionAlarms({ id, fn, scope }: WatchedFunction) {
    const timeoutMs = (fn.fn.timeout?.toSeconds() ?? 3) * 1000;
    this.add('function', id, 'errors', scope, `${id}ErrorsAlarm`, {
      metric: fn.fn.metricErrors({ period, statistic: 'Sum' }),
      threshold: th.functions.errors,
      description: `${id} failed invocations (uncaught errors, timeouts, crashes).`,
    });
    this.add('function', id, 'throttles', scope, `${id}ThrottlesAlarm`, {
      metric: fn.fn.metricThrottles({ period, statistic: 'Sum' }),
      threshold: th.functions.throttles,
      description: `${id} invocations throttled (account or reserved concurrency reached).`,
    });
    this.add('function', id, 'duration', scope, `${id}DurationAlarm`, {
      metric: fn.fn.metricDuration({ period, statistic: 'Maximum' }),
      threshold: Math.round(timeoutMs * th.functions.durationOfTimeout),
      description: `${id} ran for ${Math.round(th.functions.durationOfTimeout * 100)}% of its ${timeoutMs / 1000} s timeout or more.`,
    });
  }

  private queueAlarms(name: QueueName, q: CatalogQueue) {
    this.add('queue', name, 'dead-letters', this, `${pascal(name)}DeadLettersAlarm`, {
      metric: q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      threshold: th.queues.deadLetterMessages,
      description: `Messages of ${name} moved to its dead-letter queue after ${q.def.maxReceiveCount} failed receives.`,
    });
    const seconds = th.queues.oldestMessageSeconds[name] ?? Math.max(300, 2 * q.def.visibilityTimeoutSeconds);
    this.add('queue', name, 'oldest-message', this, `${pascal(name)}OldestMessageAlarm`, {
      metric: q.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
      threshold: seconds,
      description: `The oldest message of ${name} has waited ${seconds} s or more: a backlog or a stuck worker.`,
    });
  }

  private apiAlarms(api: apigwv2.HttpApi) {
    const requests = api.metricCount({ period, statistic: 'Sum' });
    const errors = api.metricServerError({ period, statistic: 'Sum' });
    this.add('api', 'api', '5xx-rate', this, 'Api5xxRateAlarm', {
      metric: new cw.MathExpression({
        expression: `IF(requests >= ${th.api.minRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { requests, errors },
        period,
        label: '5xx (% of requests)',
      }),
      threshold: th.api.serverErrorPercent,
      description: `${th.api.serverErrorPercent}% or more of the API's requests answered 5xx (with ${th.api.minRequests} requests or more).`,
    });
    this.add('api', 'api', 'p99-latency', this, 'ApiLatencyAlarm', {
      metric: api.metricLatency({ period, statistic: 'p99' }),
      threshold: th.api.p99LatencyMs,
      description: `The API's p99 latency reached ${th.api.p99LatencyMs} ms.`,
    });
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
        markdown: `# Despacho ${settings.stage}\nAlarms notify the SNS topic \`${settings.namePrefix}-alarms\`; what each means and what to do: README, "Operating". Business metrics: namespace \`${metricNamespace}\`, dimension stage=${settings.stage}.`,
        width: 24,
        height: 2,
      }),
    );
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
