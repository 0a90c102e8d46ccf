import { App, Tags, type Environment } from 'aws-cdk-lib';
import type { EventRuleDef, RouteDef, WorkerDef } from '../lambdas/catalog-types';
import { ApiStack } from './api';
import { DataStack } from './data';
import { applyNag } from './nag';
import { parseStage, stageSettings, type StageName, type StageSettings } from './stage';

export interface BuildOptions {
  /** The app to build into (bin/app.ts passes the CLI's); a new one otherwise. */
  app?: App;
  /** Allowed CORS origins; default `['*']`. */
  corsOrigins?: string[];
  /** Account/region; default the CLI's (CDK_DEFAULT_*), or environment-agnostic when unset. */
  env?: Environment;
  /** Register cdk-nag's AwsSolutionsChecks on the app (default true). */
  nag?: boolean;
  /** Where the stage's alarms are e-mailed (`-c alarmEmail=ops@example.com`); none by default. */
  alarmEmail?: string;
  /** Replace parts of the catalog (tests); default lambdas/catalog.ts. */
  catalog?: { routes?: RouteDef[]; workers?: WorkerDef[]; eventRules?: EventRuleDef[] };
}

export interface BuiltStage {
  app: App;
  settings: StageSettings;
  data: DataStack;
  api: ApiStack;
}

/** One stage's set of stacks: `Despacho-<stage>-data` (stateful) and `Despacho-<stage>-api`. */
export function buildApp(stage: StageName | string, opts: BuildOptions = {}): BuiltStage {
  const settings = stageSettings(parseStage(stage));
  const app = opts.app ?? new App();
  const env = opts.env ?? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const prod = settings.stage === 'prod';

  const data = new DataStack(app, `${settings.stackPrefix}-data`, {
    stackName: `${settings.stackPrefix}-data`,
    description: `Despacho ${settings.stage}: table, files bucket, event bus, queues, timers, marketplace sync schedule`,
    env,
    settings,
    eventRuleDefs: opts.catalog?.eventRules,
    corsOrigins: opts.corsOrigins ?? ['*'],
    terminationProtection: prod,
  });
  const api = new ApiStack(app, `${settings.stackPrefix}-api`, {
    stackName: `${settings.stackPrefix}-api`,
    description: `Despacho ${settings.stage}: HTTP API, route, authorizer and worker functions`,
    env,
    settings,
    data,
    corsOrigins: opts.corsOrigins ?? ['*'],
    routes: opts.catalog?.routes,
    workers: opts.catalog?.workers,
    alarmEmail: opts.alarmEmail,
  });
  // The API stack reaches some data resources by physical name, not only by reference.
  api.addStackDependency(data);

  // The dashboard goes untagged: CloudFormation takes Tags on AWS::CloudWatch::Dashboard, but
  // cfn-lint's schema (1.51) does not yet, and its errors are fixed, never accepted.
  const untagged = { excludeResourceTypes: ['AWS::CloudWatch::Dashboard'] };
  for (const stack of [data, api]) {
    Tags.of(stack).add('project', 'despacho', untagged);
    Tags.of(stack).add('stage', settings.stage, untagged);
  }
  if (opts.nag !== false) applyNag(app);
  return { app, settings, data, api };
}

/** `-c alarmEmail=ops@example.com`: one address, or nothing. */
export function parseAlarmEmail(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const email = String(value).trim();
  if (!/^[^@\s,;]+@[^@\s,;]+\.[^@\s,;]+$/.test(email) || email.length > 254) throw new Error(`alarmEmail: ${JSON.stringify(value)} is not one e-mail address`);
  return email;
}

/** `-c corsOrigins=https://a.example,https://b.example` (string) or a JSON array in cdk.json. */
export function parseCorsOrigins(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const origins = list.map((s) => s.trim()).filter(Boolean);
  for (const o of origins) {
    if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)) throw new Error(`corsOrigins: ${JSON.stringify(o)} is not an origin (scheme://host[:port]) or '*'`);
  }
  return origins.length ? origins : undefined;
}
