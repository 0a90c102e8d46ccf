import { Duration, Stack } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as codedeploy from 'aws-cdk-lib/aws-codedeploy';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { acknowledge } from './nag';
import { runbookLink } from './runbook-links';
import type { StageSettings } from './stage';

/**
 * Canary rollouts that undo themselves (issue 43). Every function is published as a version
 * behind its `live` alias, and everything that calls a function calls the alias: API Gateway's
 * integrations and authorizer, the SQS event sources, the state machine's tasks. A deploy that
 * changes a function publishes a new version; CodeDeploy moves the alias to it by the function's
 * kind (below) while it watches the function's rollback alarms: its own `live` alias's errors and
 * the composite alarm of its area. Any of them in alarm stops the deployment and moves the alias
 * back; CloudFormation then rolls the stack back. docs/operators/deploy.md, "Canary rollouts".
 */
export const liveAlias = 'live';

/** Which kind of caller a function serves; each kind takes a new version at its own pace. */
export type RolloutKind = 'route' | 'authorizer' | 'worker' | 'pipeline';

/**
 * The CodeDeploy configuration of each kind in a stage whose `rollout` is `canary`, and why.
 * (`all-at-once` stages, dev, move every alias at once: the same resources, no wait.)
 */
export const canaryByKind = {
  route: {
    config: 'CANARY_10PERCENT_5MINUTES',
    why: "Partners' calls are steady: 10% of them for 5 minutes gives the alias alarm (1-minute periods) five looks and the area's 5xx rate one full period.",
  },
  authorizer: {
    config: 'CANARY_10PERCENT_10MINUTES',
    why: 'Every protected route stands on it, and API Gateway keeps its answer per token for the cache time: a bad version reaches callers slowly, so it is watched twice as long.',
  },
  worker: {
    config: 'CANARY_10PERCENT_5MINUTES',
    why: "A failed message is retried by SQS on either version and ends in the dead-letter queue, which the area's composite alarm watches.",
  },
  pipeline: {
    config: 'CANARY_10PERCENT_10MINUTES',
    why: "Manifests arrive in bursts: 10 minutes lets a run or two reach the new version. A run may take its steps on both versions during the shift, so a change to what one task hands the next must stay readable by the version before it (add a field, then use it in a later deploy).",
  },
} as const satisfies Record<RolloutKind, { config: keyof typeof codedeploy.LambdaDeploymentConfig; why: string }>;

/** The per-alias rollback alarm: any uncaught error of the `live` alias in a minute. */
export const aliasErrorAlarm = { periodMinutes: 1, errors: 1 } as const;

export interface RolloutProps {
  settings: StageSettings;
  /** The catalog id, for names: the alarm is `<namePrefix>-<id>-live-errors`. */
  id: string;
  alias: lambda.Alias;
  kind: RolloutKind;
  /** The composite alarms by name (`<namePrefix>-area-<area>`, in the api stack): named, not referenced, so no stack depends on another for them. */
  areaAlarmNames: string[];
}

/** One function's CodeDeploy deployment group and its per-alias alarm, in the function's own stack. */
export class Rollout extends Construct {
  readonly group: codedeploy.LambdaDeploymentGroup;
  readonly aliasAlarm: cw.Alarm;

  constructor(scope: Construct, id: string, props: RolloutProps) {
    super(scope, id);
    const { settings, alias } = props;
    const shared = rolloutShared(Stack.of(this), settings);
    this.aliasAlarm = new cw.Alarm(this, 'AliasErrors', {
      alarmName: `${settings.namePrefix}-${props.id}-live-errors`,
      alarmDescription: `${props.id}: its live alias failed invocations; during a rollout this rolls the deployment back. Notifies nobody (the function's errors alarm does). Runbook: ${runbookLink(settings, 'live-errors')}`,
      metric: alias.metricErrors({ period: Duration.minutes(aliasErrorAlarm.periodMinutes), statistic: 'Sum' }),
      threshold: aliasErrorAlarm.errors,
      evaluationPeriods: 1,
      comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cw.TreatMissingData.NOT_BREACHING,
    });
    const config = settings.config.rollout === 'canary' ? codedeploy.LambdaDeploymentConfig[canaryByKind[props.kind].config] : codedeploy.LambdaDeploymentConfig.ALL_AT_ONCE;
    this.group = new codedeploy.LambdaDeploymentGroup(this, 'Group', {
      application: shared.application,
      role: shared.role,
      alias,
      deploymentConfig: config,
      alarms: [this.aliasAlarm, ...props.areaAlarmNames.map((name, i) => cw.Alarm.fromAlarmName(this, `Area${i}`, name))],
      // The area's composite exists from the stage's first deploy on; an alarm CodeDeploy cannot
      // read fails the deployment rather than passing it unwatched.
      ignorePollAlarmsFailure: false,
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
  }
}

const shared = new WeakMap<Stack, { application: codedeploy.LambdaApplication; role: iam.Role }>();

/** One CodeDeploy application and one service role per stack, shared by its functions' groups. */
function rolloutShared(stack: Stack, settings: StageSettings) {
  let s = shared.get(stack);
  if (!s) {
    // Named after the stack, so each stack's logical ids are its own (tests merge nested templates).
    const scope = new Construct(stack, `Rollouts${stack.node.id.replace(/[^A-Za-z0-9]/g, '')}`);
    const application = new codedeploy.LambdaApplication(scope, 'Application', { applicationName: `${settings.namePrefix}-${stack.node.id}`.slice(0, 100) });
    const role = new iam.Role(scope, 'Role', {
      assumedBy: new iam.ServicePrincipal('codedeploy.amazonaws.com'),
      description: `CodeDeploy shifts the live aliases of the ${settings.namePrefix} functions in ${stack.node.id}`,
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited')],
    });
    acknowledge(
      role,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      "AWS's policy for CodeDeploy on Lambda: get and update aliases, read the alarms, invoke the hooks named CodeDeployHook_*; the stage's permissions boundary bounds it.",
    );
    s = { application, role };
    shared.set(stack, s);
  }
  return s;
}
