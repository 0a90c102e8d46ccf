import { Duration, Stack, TimeZone, type NestedStack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Universal } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { acknowledge, wildcardResourceFinding } from './nag';
import type { StageSettings } from './stage';

/** When the stage's stacks are checked for drift: daily, UTC, a few minutes apart. */
export const driftSchedule = { hourUtc: 4, minutesApart: 2 } as const;

/**
 * What the drift check's role may not read although ReadOnlyAccess gives it: the stage's data.
 * Drift detection reads each resource's configuration, never its items, objects or messages.
 */
export const driftDeniedDataReads = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:GetRecords',
  'dynamodb:ExportTableToPointInTime',
  's3:GetObject',
  's3:GetObjectVersion',
  'secretsmanager:GetSecretValue',
  'kms:Decrypt',
  'sqs:ReceiveMessage',
  'logs:GetLogEvents',
  'logs:FilterLogEvents',
  'logs:StartQuery',
  'logs:StartLiveTail',
] as const;

export interface DriftDetectionProps {
  settings: StageSettings;
  /** The stage's stacks in this stack's region, by a short name: names (the data stack's) or stack ids (nested stacks' refs). */
  stacks: Record<string, string>;
  /**
   * The stack names the role may check and the rule matches, a wildcard under the stage's prefix
   * (default `<stackPrefix>-*`, every stack of the stage in this region). The edge's check in
   * us-east-1 takes `<stackPrefix>-edge*`, so a stage whose own region is us-east-1 does not alarm
   * twice for one drifted stack.
   */
  stackNamePattern?: string;
  /** The rule's name (default `<namePrefix>-stack-drifted`; names are per region, the edge's check has its own). */
  ruleName?: string;
}

/**
 * Drift detection on a schedule, with no function of ours: an EventBridge Scheduler schedule per
 * stack calls CloudFormation's DetectStackDrift directly (a universal target), once a day, and
 * CloudFormation sends a "Drift Detection Status Change" event when each detection completes. The
 * rule `<namePrefix>-stack-drifted` matches those that found the stage's stacks DRIFTED; the
 * alarm on its MatchedEvents (lib/observability.ts) tells the api area. Decided against AWS Config's
 * cloudformation-stack-drift-detection-check: it needs the account's configuration recorder (an
 * account-wide service, billed per item recorded, often the security team's), for what one API
 * call a day does here.
 *
 * DetectStackDrift reads every resource of the stack with the caller's permissions: the role has
 * AWS's ReadOnlyAccess (which follows every service the stacks may use) under the permissions
 * boundary, less the reads of data (`driftDeniedDataReads`).
 */
export class DriftDetection extends Construct {
  readonly role: iam.Role;
  readonly schedules: scheduler.Schedule[] = [];
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: DriftDetectionProps) {
    super(scope, id);
    const { settings } = props;
    const stack = Stack.of(this);
    this.role = new iam.Role(this, 'Role', {
      description: `EventBridge Scheduler detects drift of the ${settings.namePrefix} stacks`,
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('ReadOnlyAccess')],
    });
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ effect: iam.Effect.DENY, actions: [...driftDeniedDataReads], resources: ['*'] }));
    const stackArns = stack.formatArn({ service: 'cloudformation', resource: 'stack', resourceName: props.stackNamePattern ?? `${settings.stackPrefix}-*` });
    const detect = new iam.PolicyStatement({ actions: ['cloudformation:DetectStackDrift', 'cloudformation:DetectStackResourceDrift'], resources: [stackArns] });
    acknowledge(this.role, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/ReadOnlyAccess]', "DetectStackDrift reads every resource of a stack with the caller's permissions; ReadOnlyAccess follows every service the stacks use, the boundary bounds it and a Deny takes the reads of data away.");
    acknowledge(this.role, wildcardResourceFinding(this, stackArns), "The stage's stacks by name (nested stacks' names are generated under the parent's).");

    Object.entries(props.stacks).forEach(([name, stackName], i) => {
      const schedule = new scheduler.Schedule(this, `${name}Schedule`, {
        scheduleName: `${settings.namePrefix}-drift-${name.toLowerCase()}`.slice(0, 64),
        description: `Detects drift of the ${settings.namePrefix} ${name} stack, daily`,
        schedule: scheduler.ScheduleExpression.cron({ hour: String(driftSchedule.hourUtc), minute: String((i * driftSchedule.minutesApart) % 60), timeZone: TimeZone.ETC_UTC }),
        timeWindow: scheduler.TimeWindow.flexible(Duration.minutes(15)),
        target: new Universal({
          service: 'cloudformation',
          action: 'detectStackDrift',
          role: this.role,
          input: scheduler.ScheduleTargetInput.fromObject({ StackName: stackName }),
          policyStatements: [detect],
          retryAttempts: 3,
        }),
      });
      this.schedules.push(schedule);
    });

    // Only the stage's own stacks (nested ones are named after their parent): another stage in
    // the same account has its own rule.
    this.rule = new events.Rule(this, 'Drifted', {
      ruleName: props.ruleName ?? `${settings.namePrefix}-stack-drifted`,
      description: `A drift detection of a ${settings.stackPrefix} stack found it DRIFTED`,
      eventPattern: {
        source: ['aws.cloudformation'],
        detailType: ['CloudFormation Drift Detection Status Change'],
        detail: {
          'stack-id': events.Match.wildcard(stackArns),
          'status-details': { 'stack-drift-status': ['DRIFTED'] },
        },
      },
    });
  }
}

/** The stacks a drift check covers: the data stack by name, this stack by name, each nested stack by its id. */
export function driftTargets(settings: StageSettings, nested: Record<string, NestedStack>): Record<string, string> {
  return {
    data: `${settings.stackPrefix}-data`,
    api: `${settings.stackPrefix}-api`,
    ...Object.fromEntries(Object.entries(nested).map(([tag, n]) => [`api${tag.charAt(0).toUpperCase()}${tag.slice(1)}`, n.stackId])),
  };
}
