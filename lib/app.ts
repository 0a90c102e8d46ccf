import { App, CfnResource, Fn, Stack, Tags, type Environment } from 'aws-cdk-lib';
import { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { EventRuleDef, RouteDef, WorkerDef } from '#catalog/types';
import { ApiStack } from './api';
import { DataStack } from './data';
import { EdgeStack } from './edge';
import { EdgeWatchStack } from './edge-watch';
import { applyNag } from './nag';
import { configKeys, parseStage, stageSettings, type StageName, type StageOverrides, type StageSettings } from './stage';

export interface BuildOptions {
  /** The app to build into (bin/app.ts passes the CLI's); a new one otherwise. */
  app?: App;
  /** Overrides of the stage's configuration (lib/stages.ts), as `-c key=value` gives them. */
  overrides?: StageOverrides;
  /** Allowed CORS origins (the `corsOrigins` override). */
  corsOrigins?: string[];
  /** Register cdk-nag's AwsSolutionsChecks on the app (default true). */
  nag?: boolean;
  /** Where the stage's alarms are e-mailed (the `alarmEmail` override). */
  alarmEmail?: string;
  /** Replace parts of the catalog (tests); default lambdas/catalog. */
  catalog?: { routes?: RouteDef[]; workers?: WorkerDef[]; eventRules?: EventRuleDef[] };
}

export interface BuiltStage {
  app: App;
  settings: StageSettings;
  data: DataStack;
  api: ApiStack;
  /** The us-east-1 stack of CloudFront's web ACL and certificate (edge protection on). */
  edge?: EdgeStack;
  /** The us-east-1 stack of CloudFront's and the web ACL's alarms (edge protection on). */
  edgeWatch?: EdgeWatchStack;
}

/** One stage's set of stacks: `Despacho-<stage>-data` (stateful) and `Despacho-<stage>-api`. */
export function buildApp(stage: StageName | string, opts: BuildOptions = {}): BuiltStage {
  const overrides: StageOverrides = { ...opts.overrides };
  if (opts.corsOrigins) overrides.corsOrigins = opts.corsOrigins;
  if (opts.alarmEmail) overrides.alarmEmail = opts.alarmEmail;
  const settings = stageSettings(parseStage(stage), process.env, overrides);
  const app = opts.app ?? new App();
  // Only what the configuration gave: never the active credentials' account or region
  // (CDK_DEFAULT_*). Without them the stacks are environment-agnostic.
  const env: Environment = { account: settings.config.account, region: settings.config.region };
  const prod = settings.stage === 'prod';
  const corsOrigins = settings.config.corsOrigins;

  const data = new DataStack(app, `${settings.stackPrefix}-data`, {
    stackName: `${settings.stackPrefix}-data`,
    description: `Despacho ${settings.stage}: table, files bucket, event bus, queues, timers, marketplace sync schedule`,
    env,
    settings,
    eventRuleDefs: opts.catalog?.eventRules,
    corsOrigins,
    terminationProtection: prod,
  });
  // CloudFront reads web ACLs and certificates in us-east-1 only: their own stack there.
  const edge = settings.config.edgeProtection
    ? new EdgeStack(app, `${settings.stackPrefix}-edge`, {
        stackName: `${settings.stackPrefix}-edge`,
        description: `Despacho ${settings.stage}: CloudFront's web ACL and certificate (us-east-1)`,
        env: { account: settings.config.account, region: 'us-east-1' },
        settings,
        terminationProtection: prod,
      })
    : undefined;
  const api = new ApiStack(app, `${settings.stackPrefix}-api`, {
    stackName: `${settings.stackPrefix}-api`,
    description: `Despacho ${settings.stage}: HTTP API, route, authorizer and worker functions`,
    env,
    settings,
    data,
    edge,
    crossRegionReferences: !!edge,
    terminationProtection: prod,
    corsOrigins,
    routes: opts.catalog?.routes,
    workers: opts.catalog?.workers,
  });
  // The API stack reaches some data resources by physical name, not only by reference.
  api.addStackDependency(data);
  // CloudFront's and WAF's metrics are in us-east-1, and so must their alarms be.
  const edgeWatch = edge && api.apiEdge.distribution
    ? new EdgeWatchStack(app, `${settings.stackPrefix}-edge-watch`, {
        stackName: `${settings.stackPrefix}-edge-watch`,
        description: `Despacho ${settings.stage}: alarms of CloudFront and its web ACL (us-east-1)`,
        env: { account: settings.config.account, region: 'us-east-1' },
        settings,
        distributionId: api.apiEdge.distribution.distributionId,
        terminationProtection: prod,
      })
    : undefined;

  // The dashboard goes untagged: CloudFormation takes Tags on AWS::CloudWatch::Dashboard, but
  // cfn-lint's schema (1.51) does not yet, and its errors are fixed, never accepted.
  const untagged = { excludeResourceTypes: ['AWS::CloudWatch::Dashboard'] };
  const stacks = [data, api, ...(edge ? [edge] : []), ...(edgeWatch ? [edgeWatch] : [])];
  for (const stack of stacks) {
    Tags.of(stack).add('project', 'despacho', untagged);
    Tags.of(stack).add('stage', settings.stage, untagged);
  }
  for (const stack of stacks) boundEveryRole(stack);
  if (opts.nag !== false) applyNag(app);
  return { app, settings, data, api, edge, edgeWatch };
}

/**
 * The permissions boundary cdk.json names (`@aws-cdk/core:permissionsBoundary`) on every role of
 * the stack. CloudFormation deploys with an execution policy that refuses a role without it
 * (.github/aws/github-oidc.yaml). The CDK puts it on the roles it builds as iam.Role, but not on
 * its own custom resource providers' roles (the cross-region exports'), which it adds while
 * resolving references, after every aspect has run: so this runs as a validation, the step
 * between resolving references and writing the templates.
 */
function boundEveryRole(stack: Stack): void {
  const name = (stack.node.tryGetContext('@aws-cdk/core:permissionsBoundary') as { name?: string } | undefined)?.name;
  if (!name) return;
  stack.node.addValidation({
    validate: () => {
      for (const c of stack.node.findAll()) {
        if (c instanceof CfnResource && c.cfnResourceType === 'AWS::IAM::Role' && !(c instanceof CfnRole) && Stack.of(c) === stack) {
          c.addPropertyOverride('PermissionsBoundary', Fn.sub(`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:policy/${name}`));
        }
      }
      return [];
    },
  });
}

/** The `-c key=value` values of the configuration keys (lib/stage.ts `configKeys`) the CLI was given. */
export function contextOverrides(app: App): StageOverrides {
  const out: StageOverrides = {};
  for (const key of configKeys) {
    const value = app.node.tryGetContext(key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}
