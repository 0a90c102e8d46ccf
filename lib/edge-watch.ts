import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { anyInAlarm } from './alarm-areas';
import { alarmThresholds as th } from './alarm-thresholds';
import { DriftDetection } from './drift';
import { webAclName } from './edge';
import { alarmTopic } from './observability';
import { runbookLink } from './runbook-links';
import type { StageSettings } from './stage';

/** The rules of the web ACL (lib/edge.ts) the edge watches, and whether each is a managed rule group the stage's `wafManagedRules` may set to count. */
export const watchedWafRules = [
  { rule: 'RatePerIp', switchable: false },
  { rule: 'AWSManagedRulesAmazonIpReputationList', switchable: true },
  { rule: 'AWSManagedRulesCommonRuleSet', switchable: true },
  { rule: 'AWSManagedRulesKnownBadInputsRuleSet', switchable: true },
  { rule: 'BodyRulesOutsideUploads', switchable: true },
] as const;

export interface EdgeWatchStackProps extends StackProps {
  settings: StageSettings;
  /** The API's CloudFront distribution (a reference from the api stack, across regions). */
  distributionId: string;
}

/**
 * The alarms of what CloudFront and its web ACL do, in us-east-1, where both report their
 * metrics (a CloudWatch alarm reads metrics of its own region only, and notifies a topic of its
 * own region): CloudFront's 5xx rate (the origin's 5xx, and CloudFront's own when it cannot reach
 * the origin: an expired client certificate or a failed TLS handshake, which no API alarm sees)
 * and, per rule of the web ACL, a spike of requests it blocked (or, for a rule the stage's
 * `wafManagedRules` sets to count, would have blocked). The composite `<namePrefix>-area-edge`
 * notifies `<namePrefix>-edge-alarms`, subscribed like the stage's topic (its e-mails and HTTPS
 * endpoints), or the stage's `alarmTopicArn` when that topic is in us-east-1.
 */
export class EdgeWatchStack extends Stack {
  readonly topic: sns.ITopic;
  readonly alarms: { name: string; kind: string; alarm: cw.Alarm }[] = [];
  readonly composite: cw.CompositeAlarm;
  /** The daily drift detection of the stage's us-east-1 stacks (this one and the edge's), alarmed in this area. */
  readonly drift: DriftDetection;

  constructor(scope: Construct, id: string, props: EdgeWatchStackProps) {
    super(scope, id, { ...props, crossRegionReferences: true });
    const { settings, distributionId } = props;
    const period = Duration.minutes(th.periodMinutes);
    const { alarmTopicArn, alarmEmails, alarmHttpsEndpoints } = settings.config;
    const topicHere = alarmTopicArn && alarmTopicArn.split(':')[3] === 'us-east-1' ? alarmTopicArn : undefined;
    this.topic = alarmTopic(this, settings, { emails: alarmEmails, httpsEndpoints: alarmHttpsEndpoints, topicArn: topicHere, topicName: `${settings.namePrefix}-edge-alarms` });

    const add = (kind: string, target: string, cid: string, o: { metric: cw.IMetric; threshold: number; description: string }) => {
      const name = `${settings.namePrefix}-${target}-${kind}`;
      const alarm = new cw.Alarm(this, cid, {
        alarmName: name,
        alarmDescription: `${o.description} Area: Edge (us-east-1). Runbook: ${runbookLink(settings, kind)}`,
        metric: o.metric,
        threshold: o.threshold,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: th.evaluationPeriods,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      });
      this.alarms.push({ name, kind, alarm });
    };

    const cloudFront = (metricName: string, statistic: string) =>
      new cw.Metric({ namespace: 'AWS/CloudFront', metricName, dimensionsMap: { DistributionId: distributionId, Region: 'Global' }, period, statistic });
    add('cloudfront-5xx-rate', 'edge', 'CloudFront5xxRateAlarm', {
      metric: new cw.MathExpression({
        expression: `IF(requests >= ${th.edge.minRequests}, rate, 0)`,
        usingMetrics: { requests: cloudFront('Requests', 'Sum'), rate: cloudFront('5xxErrorRate', 'Average') },
        period,
        label: 'CloudFront 5xx (% of requests)',
      }),
      threshold: th.edge.cloudFront5xxPercent,
      description: `${th.edge.cloudFront5xxPercent}% or more of CloudFront's responses were 5xx (with ${th.edge.minRequests} requests or more): the API's, or CloudFront's own when it cannot reach the origin.`,
    });

    const enforce = settings.config.wafManagedRules === 'block';
    for (const { rule, switchable } of watchedWafRules) {
      const counting = switchable && !enforce;
      add('waf-rule-matches', rule, `Waf${rule}Alarm`, {
        metric: new cw.Metric({ namespace: 'AWS/WAFV2', metricName: counting ? 'CountedRequests' : 'BlockedRequests', dimensionsMap: { WebACL: webAclName(settings), Rule: rule }, period, statistic: 'Sum' }),
        threshold: th.edge.wafRuleMatches,
        description: `The web ACL's rule ${rule} ${counting ? 'counted (it would have blocked)' : 'blocked'} ${th.edge.wafRuleMatches} requests or more: a flood, an attack, or a rule refusing real traffic.`,
      });
    }

    // The drift check of the api stack's region does not reach us-east-1 (a schedule calls
    // CloudFormation in its own region): the edge's stacks get their own, alarmed here.
    this.drift = new DriftDetection(this, 'DriftDetection', {
      settings,
      stacks: { edge: `${settings.stackPrefix}-edge`, edgeWatch: `${settings.stackPrefix}-edge-watch` },
      stackNamePattern: `${settings.stackPrefix}-edge*`,
      ruleName: `${settings.namePrefix}-edge-stack-drifted`,
    });
    add('drift', 'edge-stacks', 'EdgeStacksDriftAlarm', {
      metric: new cw.Metric({ namespace: 'AWS/Events', metricName: 'MatchedEvents', dimensionsMap: { RuleName: this.drift.rule.ruleName }, period, statistic: 'Sum' }),
      threshold: th.platform.stacksDrifted,
      description: "A daily drift detection found one of the stage's us-east-1 stacks (the edge's web ACL and certificate, or these alarms) changed outside CloudFormation.",
    });

    this.composite = new cw.CompositeAlarm(this, 'EdgeAreaAlarm', {
      compositeAlarmName: `${settings.namePrefix}-area-edge`,
      alarmDescription: `Edge: CloudFront and its web ACL (us-east-1). In alarm while any of its alarms is. Runbook: ${runbookLink(settings, 'area-edge')}`,
      alarmRule: cw.AlarmRule.fromString(anyInAlarm(this.alarms.map((a) => a.name))),
    });
    this.composite.node.addDependency(...this.alarms.map((a) => a.alarm));
    const action = new SnsAction(this.topic);
    this.composite.addAlarmAction(action);
    this.composite.addOkAction(action);
  }
}
