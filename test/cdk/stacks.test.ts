import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizer, eventRules, fallback, pipelineTasks, queues, routes as catalogRoutes, workers } from '#catalog';
import { stageNames, stageSteps } from '#core/pipeline/stages';
import type { EventRuleDef, RouteDef, WorkerDef } from '#catalog/types';
import { syncCron } from '#core/orders/sync-schedule';
import { tableSchema } from '#infra/table-schema';
import { routeKey } from '#catalog/routing';
import { buildApp, type BuildOptions, type BuiltStage } from '#lib/app';
import { pascal } from '#lib/data';
import { marketplaceSecretTagKeys, projectRoot, queueUrlVariable } from '#lib/functions';
import { acknowledgments, nagFindings } from '#lib/nag';
import { parseOrderSyncEveryMinutes, parseStage, resolveStageConfig, stageSettings } from '#lib/stage';
import { referenceProd } from '#support/cdk';
import { stageApp } from '#support/cdk';

// ---------------------------------------------------------------------------------------------
// Helpers

/** The routes AWS serves: a twin-only route (the twin's metrics tally) has no function or route there. */
const routes = catalogRoutes.filter((r) => !r.twinOnly);

interface Synthesized extends BuiltStage {
  dataTemplate: Template;
  /** The api stack and its nested route stacks as one template (their resources side by side). */
  apiTemplate: Template;
  /** Each template of the api stack on its own: `api` itself, then one per route tag. */
  apiTemplates: Record<string, Template>;
}

/** One stage's templates, built as test/support/cdk.ts `stageApp` builds them (cdk-nag on: any unacknowledged finding throws). */
function synth(stage: string, opts: Omit<BuildOptions, 'app'> = {}): Synthesized {
  const built = stageApp(stage, opts);
  const apiTemplates: Record<string, Template> = { api: Template.fromStack(built.api) };
  for (const [tag, nested] of Object.entries(built.api.routeStacks)) apiTemplates[tag] = Template.fromStack(nested);
  return { ...built, dataTemplate: Template.fromStack(built.data), apiTemplate: merged(Object.values(apiTemplates)), apiTemplates };
}

/**
 * The resources of a stack and its nested stacks in one template, so a function, its role and
 * its route are found wherever they live. A nested template reaches the parent's resources
 * through parameters; `deref` follows those back (see `parameterValues`).
 */
function merged(templates: Template[]): Template {
  const [parent, ...nested] = templates.map((t) => t.toJSON());
  const resources: Record<string, unknown> = {};
  for (const t of [parent, ...nested]) {
    for (const [id, r] of Object.entries(t.Resources ?? {})) {
      if (id in resources) throw new Error(`logical id ${id} is in two templates`);
      resources[id] = r;
    }
  }
  return Template.fromJSON({ ...parent, Resources: resources });
}

/** What the parent passes for each parameter of its nested stacks. */
function parameterValues(t: Template): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of Object.values(resources(t, 'AWS::CloudFormation::Stack'))) Object.assign(out, r.Properties?.Parameters ?? {});
  return out;
}

/** A `{ Ref: <nested stack parameter> }` as the parent's value it stands for; anything else as is. */
function deref(t: Template, value: unknown): unknown {
  const ref = (value as { Ref?: string })?.Ref;
  const passed = ref === undefined ? undefined : parameterValues(t)[ref];
  return passed ?? value;
}

type Resource = { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string };
const resources = (t: Template, type: string) => t.findResources(type) as Record<string, Resource>;
const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

function functionLogicalId(t: Template, stage: string, id: string): string {
  const found = Object.entries(resources(t, 'AWS::Lambda::Function')).filter(([, r]) => r.Properties.FunctionName === `despacho-${stage}-${id}`);
  if (found.length !== 1) throw new Error(`expected one function despacho-${stage}-${id}, found ${found.length}`);
  return found[0][0];
}
/** The logical id of a function's `live` alias (lib/rollout.ts): what every caller of the function names. */
function liveAliasId(t: Template, stage: string, id: string): string {
  const fn = functionLogicalId(t, stage, id);
  const found = Object.entries(resources(t, 'AWS::Lambda::Alias')).filter(([, r]) => r.Properties.FunctionName?.Ref === fn && r.Properties.Name === 'live');
  if (found.length !== 1) throw new Error(`expected one live alias of despacho-${stage}-${id}, found ${found.length}`);
  return found[0][0];
}
/** How an event source names a live alias: the function's name (from the alias's ARN) and `:live`. */
const aliasName = (aliasId: string) => ({ 'Fn::Join': ['', [{ 'Fn::Select': [6, { 'Fn::Split': [':', { Ref: aliasId }] }] }, ':live']] });
const functionProps = (t: Template, stage: string, id: string) => resources(t, 'AWS::Lambda::Function')[functionLogicalId(t, stage, id)].Properties;

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every statement of every policy on the function's role (inline and attached). */
function roleStatements(t: Template, stage: string, id: string): Statement[] {
  const roleId = functionProps(t, stage, id).Role['Fn::GetAtt'][0] as string;
  const role = resources(t, 'AWS::IAM::Role')[roleId];
  const inline = list<any>(role.Properties.Policies).flatMap((p) => p.PolicyDocument.Statement as Statement[]);
  const attached = Object.values(resources(t, 'AWS::IAM::Policy'))
    .filter((p) => list<any>(p.Properties.Roles).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
  return [...inline, ...attached];
}

const actionsOf = (statements: Statement[], prefix: string) =>
  [...new Set(statements.flatMap((s) => list(s.Action)).filter((a) => a.startsWith(prefix)))].sort();

/** Resources of the statements that grant an action, flattened to readable strings. */
const resourcesFor = (statements: Statement[], action: string) =>
  [...new Set(statements.filter((s) => list(s.Action).includes(action)).flatMap((s) => list(s.Resource).map(flat)))].sort();

/** A CloudFormation value as a readable string: `arn:<AWS::Partition>:dynamodb:...`. */
function flat(node: unknown): string {
  if (typeof node === 'string') return node;
  const o = node as Record<string, any>;
  if (o['Fn::Join']) return (o['Fn::Join'][1] as unknown[]).map(flat).join(o['Fn::Join'][0]);
  if (o['Fn::GetAtt']) return `<${o['Fn::GetAtt'].join('.')}>`;
  if (o.Ref) return `<${o.Ref}>`;
  if (o['Fn::ImportValue']) return `import(${flat(o['Fn::ImportValue'])})`;
  return JSON.stringify(node);
}

/** A worker and an event rule the catalog does not have yet, to exercise those code paths. */
const probeWorker: WorkerDef = {
  id: 'ProbeWorker',
  handler: 'http/system/health',
  summary: 'Exercises every kind of access',
  queue: 'webhookDelivery',
  batchSize: 5,
  uses: {
    table: ['GetItem', 'PutItem'],
    bucket: [{ name: 'files', actions: ['GetObject', 'PutObject', 'ListBucket'] }],
    queues: [{ name: 'webhookDelivery', actions: ['SendMessage'] }],
    bus: true,
    scheduler: true,
  },
};
const probeRule: EventRuleDef = { id: 'orderEvents', eventTypes: ['order.created', 'order.updated'], queue: 'webhookFanout' };

// ---------------------------------------------------------------------------------------------

let dev: Synthesized;
let prod: Synthesized;
let probe: Synthesized;

beforeAll(() => {
  dev = synth('dev');
  prod = synth('prod');
  // The probe stage also takes a sync interval other than the default, as `cdk synth` would
  // with DESPACHO_ORDER_SYNC_EVERY_MINUTES=15 in its environment.
  const given = process.env.DESPACHO_ORDER_SYNC_EVERY_MINUTES;
  process.env.DESPACHO_ORDER_SYNC_EVERY_MINUTES = '15';
  try {
    probe = synth('staging', { catalog: { workers: [probeWorker], eventRules: [probeRule] }, corsOrigins: ['https://app.example.com'] });
  } finally {
    if (given === undefined) delete process.env.DESPACHO_ORDER_SYNC_EVERY_MINUTES;
    else process.env.DESPACHO_ORDER_SYNC_EVERY_MINUTES = given;
  }
}, 120_000);

describe('stages', { timeout: 60_000 }, () => {
  it('defaults to dev and rejects unknown stages with a clear error', () => {
    expect(parseStage(undefined)).toBe('dev');
    expect(parseStage('prod')).toBe('prod');
    expect(() => parseStage('qa')).toThrow(/Unknown stage "qa": use -c stage=<dev\|staging\|prod>/);
    expect(() => buildApp('production', { app: new App(), nag: false })).toThrow(/Unknown stage/);
  });

  it('names each stage its own data and api stacks', () => {
    expect(dev.data.stackName).toBe('Despacho-dev-data');
    expect(dev.api.stackName).toBe('Despacho-dev-api');
    expect(prod.data.stackName).toBe('Despacho-prod-data');
    expect(prod.api.stackName).toBe('Despacho-prod-api');
    expect(probe.api.stackName).toBe('Despacho-staging-api');
    expect(prod.data.terminationProtection).toBe(true);
    expect(dev.data.terminationProtection).toBe(false);
    expect(dev.api.dependencies).toContain(dev.data);
  });

  it('reads the sync interval from DESPACHO_ORDER_SYNC_EVERY_MINUTES and refuses one the sync does not offer', () => {
    expect(parseOrderSyncEveryMinutes(undefined)).toBe(60);
    expect(parseOrderSyncEveryMinutes('')).toBe(60);
    expect(parseOrderSyncEveryMinutes('15')).toBe(15);
    expect(stageSettings('dev', {}).orderSyncEveryMinutes).toBe(60);
    expect(stageSettings('prod', { DESPACHO_ORDER_SYNC_EVERY_MINUTES: '30' }, referenceProd).orderSyncEveryMinutes).toBe(30);
    expect(() => parseOrderSyncEveryMinutes('7')).toThrow(/DESPACHO_ORDER_SYNC_EVERY_MINUTES="7": use one of 5, 10, 15, 20, 30, 60/);
    expect(() => stageSettings('dev', { DESPACHO_ORDER_SYNC_EVERY_MINUTES: 'hourly' })).toThrow(/DESPACHO_ORDER_SYNC_EVERY_MINUTES/);
  });

  it('reads CORS origins from a comma list or an array and rejects non-origins', () => {
    expect(resolveStageConfig('dev', {}).corsOrigins).toEqual(['*']);
    expect(resolveStageConfig('dev', { corsOrigins: 'https://a.example, https://b.example:8443' }).corsOrigins).toEqual(['https://a.example', 'https://b.example:8443']);
    expect(resolveStageConfig('dev', { corsOrigins: ['*'] }).corsOrigins).toEqual(['*']);
    expect(() => resolveStageConfig('dev', { corsOrigins: 'https://a.example/path' })).toThrow(/not an origin/);
  });
});

describe('data stack', { timeout: 60_000 }, () => {
  it('builds the table key schema and GSIs from tableSchema', () => {
    const attributes = [tableSchema.partitionKey, tableSchema.sortKey, ...tableSchema.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    dev.dataTemplate.resourceCountIs('AWS::DynamoDB::Table', 1);
    dev.dataTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'despacho-dev',
      KeySchema: [
        { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayEquals(attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' }))),
      GlobalSecondaryIndexes: tableSchema.indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: tableSchema.ttlAttribute, Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('retains the prod table and files bucket, with point-in-time recovery and versioning', () => {
    prod.dataTemplate.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      }),
    });
    const files = Object.entries(resources(prod.dataTemplate, 'AWS::S3::Bucket')).find(([id]) => id.startsWith('Files'))![1];
    expect(files.DeletionPolicy).toBe('Retain');
    expect(files.UpdateReplacePolicy).toBe('Retain');
    expect(files.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    for (const bucket of Object.values(resources(prod.dataTemplate, 'AWS::S3::Bucket'))) expect(bucket.DeletionPolicy).toBe('Retain');
  });

  it('backs the prod table up daily with AWS Backup, kept 35 days, in an encrypted vault prod retains, beside point-in-time recovery and the versioned files', () => {
    const t = prod.dataTemplate;
    const [[tableId]] = Object.entries(resources(t, 'AWS::DynamoDB::Table'));
    expect(resources(t, 'AWS::DynamoDB::Table')[tableId].Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    const files = Object.entries(resources(t, 'AWS::S3::Bucket')).find(([id]) => id.startsWith('Files'))![1];
    expect(files.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });

    const [[vaultId, vault]] = Object.entries(resources(t, 'AWS::Backup::BackupVault'));
    expect([vault.DeletionPolicy, vault.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    expect(vault.Properties.BackupVaultName).toBe('despacho-prod-table');
    const keyId = vault.Properties.EncryptionKeyArn['Fn::GetAtt'][0];
    expect(resources(t, 'AWS::KMS::Key')[keyId].Properties.EnableKeyRotation).toBe(true);
    expect(resources(t, 'AWS::KMS::Key')[keyId].DeletionPolicy).toBe('Retain');
    // Recovery points expire by the plan's lifecycle only, never by hand.
    expect(vault.Properties.AccessPolicy.Statement).toEqual([
      expect.objectContaining({ Effect: 'Deny', Principal: { AWS: '*' }, Action: expect.arrayContaining(['backup:DeleteRecoveryPoint', 'backup:UpdateRecoveryPointLifecycle']) }),
    ]);

    const [[planId, plan]] = Object.entries(resources(t, 'AWS::Backup::BackupPlan'));
    expect(plan.Properties.BackupPlan.BackupPlanRule).toEqual([
      {
        RuleName: 'Daily',
        ScheduleExpression: 'cron(0 5 * * ? *)',
        ScheduleExpressionTimezone: 'Etc/UTC',
        StartWindowMinutes: 60,
        CompletionWindowMinutes: 240,
        Lifecycle: { DeleteAfterDays: 35 },
        TargetBackupVault: { 'Fn::GetAtt': [vaultId, 'BackupVaultName'] },
        CopyActions: [{ DestinationBackupVaultArn: referenceProd.backupCopyVaultArn, Lifecycle: { DeleteAfterDays: 90 } }],
      },
    ]);
    const selection = Object.values(resources(t, 'AWS::Backup::BackupSelection')).find((r) => r.Properties.BackupSelection.SelectionName === 'despacho-prod-table')!;
    expect(selection.Properties.BackupPlanId).toEqual({ 'Fn::GetAtt': [planId, 'BackupPlanId'] });
    expect(selection.Properties.BackupSelection.Resources).toEqual([{ 'Fn::GetAtt': [tableId, 'Arn'] }]);
    const roleId = selection.Properties.BackupSelection.IamRoleArn['Fn::GetAtt'][0];
    const role = resources(t, 'AWS::IAM::Role')[roleId];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([expect.objectContaining({ Principal: { Service: 'backup.amazonaws.com' } })]);
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(/service-role\/AWSBackupServiceRolePolicyForBackup.*service-role\/AWSBackupServiceRolePolicyForRestores/);
    // The managed policies are the one acknowledged finding of the backup, each with its reason
    // (the files' selection adds AWS Backup for S3's own two).
    expect([...new Set(acknowledgments(prod.data).filter((a) => a.path.includes('/TableBackup/')).map((a) => a.id))].sort()).toEqual([
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSBackupServiceRolePolicyForS3Backup]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSBackupServiceRolePolicyForS3Restore]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForRestores]',
    ]);
  });

  it('has no AWS Backup plan in dev (its table keeps point-in-time recovery), and staging has prod\'s', () => {
    for (const type of ['AWS::Backup::BackupVault', 'AWS::Backup::BackupPlan', 'AWS::Backup::BackupSelection']) {
      dev.dataTemplate.resourceCountIs(type, 0);
      expect(Object.keys(resources(probe.dataTemplate, type)).length, type).toBeGreaterThan(0);
    }
    for (const s of [dev, probe]) s.dataTemplate.hasResourceProperties('AWS::DynamoDB::Table', { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
  });

  it('lets dev drop its table and buckets but keeps point-in-time recovery on', () => {
    dev.dataTemplate.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
    });
    const files = Object.entries(resources(dev.dataTemplate, 'AWS::S3::Bucket')).find(([id]) => id.startsWith('Files'))![1];
    expect(files.DeletionPolicy).toBe('Delete');
    expect(files.Properties.VersioningConfiguration).toBeUndefined();
  });

  it('blocks public access, encrypts and logs the files bucket and denies plain HTTP', () => {
    const buckets = resources(dev.dataTemplate, 'AWS::S3::Bucket');
    const [filesId, files] = Object.entries(buckets).find(([id]) => id.startsWith('Files'))!;
    const [logsId] = Object.entries(buckets).find(([id]) => id.startsWith('AccessLogs'))!;
    for (const bucket of Object.values(buckets)) {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    }
    expect(files.Properties.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: logsId }, LogFilePrefix: 'files/' });
    for (const id of [filesId, logsId]) {
      dev.dataTemplate.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('gives every catalog queue its own dead-letter queue with the catalog limits', () => {
    const all = resources(dev.dataTemplate, 'AWS::SQS::Queue');
    expect(Object.keys(all)).toHaveLength(Object.keys(queues).length * 2);
    for (const [name, def] of Object.entries(queues)) {
      const [, queue] = Object.entries(all).find(([id]) => id.startsWith(`${pascal(name)}Queue`))!;
      const [dlqId] = Object.entries(all).find(([id]) => id.startsWith(`${pascal(name)}Dlq`))!;
      expect(queue.Properties.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
        maxReceiveCount: def.maxReceiveCount,
      });
      expect(queue.Properties.VisibilityTimeout).toBe(def.visibilityTimeoutSeconds);
    }
    for (const [id, queue] of Object.entries(all)) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      dev.dataTemplate.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('lets EventBridge Scheduler send only to the catalog queues, in a schedule group per stage', () => {
    dev.dataTemplate.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'despacho-dev' });
    const roles = resources(dev.dataTemplate, 'AWS::IAM::Role');
    const [roleId, role] = Object.entries(roles).find(([id]) => id.startsWith('SchedulerRole'))!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Principal: { Service: 'scheduler.amazonaws.com' }, Action: 'sts:AssumeRole' }),
    ]);
    const policy = Object.values(resources(dev.dataTemplate, 'AWS::IAM::Policy')).find((p) => p.Properties.Roles.some((r: any) => r.Ref === roleId))!;
    const statements = policy.Properties.PolicyDocument.Statement as Statement[];
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('sqs:SendMessage');
    const queueIds = Object.keys(resources(dev.dataTemplate, 'AWS::SQS::Queue')).filter((id) => /Queue[0-9A-F]{8}$/.test(id));
    expect(list(statements[0].Resource)).toEqual(expect.arrayContaining(queueIds.map((id) => ({ 'Fn::GetAtt': [id, 'Arn'] }))));
    expect(list(statements[0].Resource)).toHaveLength(queueIds.length);
  });

  it('schedules the marketplace sync on the clock in UTC, sending the scheduled tick to the sync queue', () => {
    // Three recurring schedules: the marketplace sync, the carriers' tracking poll (issue 18) and the exchange-rate retry (issue 44).
    dev.dataTemplate.resourceCountIs('AWS::Scheduler::Schedule', 3);
    const schedule = Object.values(resources(dev.dataTemplate, 'AWS::Scheduler::Schedule')).find((r) => r.Properties.Name === 'despacho-dev-marketplace-sync')!;
    expect(schedule.Properties).toMatchObject({
      Name: 'despacho-dev-marketplace-sync',
      GroupName: 'despacho-dev',
      ScheduleExpression: syncCron(60),
      ScheduleExpressionTimezone: 'Etc/UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
    });
    expect(schedule.Properties.ScheduleExpression).toBe('cron(0 * * * ? *)');
    // The group is named, not referenced: the schedule must wait for it.
    expect(list((schedule as { DependsOn?: string | string[] }).DependsOn)).toEqual([expect.stringMatching(/^Timers/)]);
    const target = schedule.Properties.Target;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^MarketplaceSyncQueue[0-9A-F]{8}$/), 'Arn'] });
    expect(target.Input).toBe('{"kind":"scheduled"}');
    expect(target.RoleArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^MarketplaceSyncScheduleRole/), 'Arn'] });
    expect(target.DeadLetterConfig).toBeUndefined();
    // A stage built with another interval gets that interval's cron.
    const every15 = Object.values(resources(probe.dataTemplate, 'AWS::Scheduler::Schedule')).find((r) => String(r.Properties.Name).endsWith('-marketplace-sync'))!;
    expect(every15.Properties.ScheduleExpression).toBe(syncCron(15));
    expect(every15.Properties.ScheduleExpression).toBe('cron(0/15 * * * ? *)');
  });

  it("schedules the carriers' tracking poll every 30 minutes, its own role sending only to the poll queue", () => {
    const poll = Object.values(resources(dev.dataTemplate, 'AWS::Scheduler::Schedule')).find((r) => r.Properties.Name === 'despacho-dev-tracking-poll')!;
    expect(poll.Properties).toMatchObject({ GroupName: 'despacho-dev', ScheduleExpression: 'cron(0/30 * * * ? *)', ScheduleExpressionTimezone: 'Etc/UTC', FlexibleTimeWindow: { Mode: 'OFF' }, State: 'ENABLED' });
    expect(poll.Properties.Target.Arn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^TrackingPollQueue[0-9A-F]{8}$/), 'Arn'] });
    expect(poll.Properties.Target.Input).toBe('{"kind":"scheduled"}');
    const roleId = (poll.Properties.Target.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(roleId).toMatch(/^TrackingPollScheduleRole/);
    const statements = Object.values(resources(dev.dataTemplate, 'AWS::IAM::Policy'))
      .filter((p) => list<any>(p.Properties.Roles).some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('sqs:SendMessage');
    expect(list(statements[0].Resource)).toEqual([{ 'Fn::GetAtt': [poll.Properties.Target.Arn['Fn::GetAtt'][0], 'Arn'] }]);
  });

  it('schedules the exchange-rate retry every hour on the clock, its own role sending only to the retry queue', () => {
    const retry = Object.values(resources(dev.dataTemplate, 'AWS::Scheduler::Schedule')).find((r) => r.Properties.Name === 'despacho-dev-exchange-rate-retry')!;
    expect(retry.Properties).toMatchObject({ GroupName: 'despacho-dev', ScheduleExpression: 'cron(0 * * * ? *)', ScheduleExpressionTimezone: 'Etc/UTC', FlexibleTimeWindow: { Mode: 'OFF' }, State: 'ENABLED' });
    expect(retry.Properties.Target.Arn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ExchangeRateRetryQueue[0-9A-F]{8}$/), 'Arn'] });
    expect(retry.Properties.Target.Input).toBe('{"kind":"scheduled"}');
    const roleId = (retry.Properties.Target.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(roleId).toMatch(/^ExchangeRateRetryScheduleRole/);
    const statements = Object.values(resources(dev.dataTemplate, 'AWS::IAM::Policy'))
      .filter((p) => list<any>(p.Properties.Roles).some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('sqs:SendMessage');
    expect(list(statements[0].Resource)).toEqual([{ 'Fn::GetAtt': [retry.Properties.Target.Arn['Fn::GetAtt'][0], 'Arn'] }]);
  });

  it('gives the sync schedule a role that can only send messages to the sync queue', () => {
    const roles = resources(dev.dataTemplate, 'AWS::IAM::Role');
    const [roleId, role] = Object.entries(roles).find(([id]) => id.startsWith('MarketplaceSyncScheduleRole'))!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toHaveLength(1);
    const trust = role.Properties.AssumeRolePolicyDocument.Statement[0];
    expect(trust).toMatchObject({ Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' }, Action: 'sts:AssumeRole' });
    expect(trust.Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    expect(flat(trust.Condition.StringEquals['aws:SourceArn'])).toBe('arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule-group/despacho-dev');
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toBeUndefined();
    const statements = Object.values(resources(dev.dataTemplate, 'AWS::IAM::Policy'))
      .filter((p) => list<any>(p.Properties.Roles).some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    // SSE-SQS queues: no KMS key to grant.
    expect(statements).toEqual([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [expect.stringMatching(/^MarketplaceSyncQueue[0-9A-F]{8}$/), 'Arn'] } }]);
    dev.dataTemplate.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: queues.marketplaceSync.visibilityTimeoutSeconds, KmsMasterKeyId: Match.absent(), SqsManagedSseEnabled: true });
  });

  it('routes the event types of each event rule from the bus to its queue', () => {
    // The probe's catalog rule; staging's data stack also has the backup plan's failed-jobs rule.
    const rules = Object.fromEntries(Object.entries(resources(probe.dataTemplate, 'AWS::Events::Rule')).filter(([, r]) => r.Properties.EventBusName));
    expect(Object.keys(rules)).toHaveLength(1);
    const rule = Object.values(rules)[0].Properties;
    expect(rule.EventPattern).toEqual({ 'detail-type': ['order.created', 'order.updated'] });
    expect(rule.EventBusName).toEqual({ Ref: expect.stringMatching(/^Bus/) });
    expect(rule.Targets).toHaveLength(1);
    expect(rule.Targets[0].Arn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^WebhookFanoutQueue/), 'Arn'] });
    expect(rule.Targets[0].DeadLetterConfig.Arn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^WebhookFanoutDlq/), 'Arn'] });
    dev.dataTemplate.resourceCountIs('AWS::Events::Rule', eventRules.length);
    dev.dataTemplate.hasResourceProperties('AWS::Events::EventBus', { Name: 'despacho-dev' });
  });
});

describe('api stack', { timeout: 60_000 }, () => {
  const stage = 'dev';
  const authorizerId = () => Object.keys(resources(dev.apiTemplate, 'AWS::ApiGatewayV2::Authorizer'))[0];
  const routeByKey = (t: Template, key: string) => {
    const found = Object.values(resources(t, 'AWS::ApiGatewayV2::Route')).filter((r) => r.Properties.RouteKey === key);
    expect(found, key).toHaveLength(1);
    return found[0].Properties;
  };
  const integratedFunction = (t: Template, route: any): string => {
    const integrationId = route.Target['Fn::Join'][1][1].Ref as string;
    // The integration calls the function's live alias (lib/rollout.ts); this answers the function behind it.
    const alias = resources(t, 'AWS::Lambda::Alias')[resources(t, 'AWS::ApiGatewayV2::Integration')[integrationId].Properties.IntegrationUri.Ref];
    expect(alias.Properties.Name).toBe('live');
    return alias.Properties.FunctionName.Ref;
  };

  it('gives every catalog route a Lambda of its own, behind the authorizer unless public', () => {
    const seen = new Set<string>();
    for (const r of routes) {
      const route = routeByKey(dev.apiTemplate, routeKey(r));
      expect(route.RouteKey).toMatch(r.root ? /^GET \/(dashboard|console)/ : /^(GET|POST|PUT|PATCH|DELETE) \/api\//);
      const fn = integratedFunction(dev.apiTemplate, route);
      expect(fn).toBe(functionLogicalId(dev.apiTemplate, stage, r.id));
      expect(seen.has(fn)).toBe(false);
      seen.add(fn);
      if (r.auth === 'public') {
        expect(route.AuthorizationType).toBe('NONE');
        expect(route.AuthorizerId).toBeUndefined();
      } else {
        expect(route.AuthorizationType).toBe('CUSTOM');
        expect(deref(dev.apiTemplate, route.AuthorizerId)).toEqual({ Ref: authorizerId() });
      }
    }
    expect(routeByKey(dev.apiTemplate, 'GET /api/v1/me').AuthorizationType).toBe('CUSTOM');
    expect(routeByKey(dev.apiTemplate, 'GET /api/health').AuthorizationType).toBe('NONE');
    dev.apiTemplate.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1);
  });

  it('deploys no function or route for a twin-only route', () => {
    const twinOnly = catalogRoutes.filter((r) => r.twinOnly);
    expect(twinOnly.map((r) => r.id)).toContain('AdminMetrics');
    for (const r of twinOnly) {
      expect(Object.values(resources(dev.apiTemplate, 'AWS::ApiGatewayV2::Route')).filter((x) => x.Properties.RouteKey === routeKey(r))).toEqual([]);
      expect(Object.values(resources(dev.apiTemplate, 'AWS::Lambda::Function')).filter((f) => f.Properties.FunctionName === `despacho-dev-${r.id}`)).toEqual([]);
    }
  });

  it('sends every unmatched request to the fallback without the authorizer', () => {
    const route = routeByKey(dev.apiTemplate, '$default');
    expect(route.AuthorizationType).toBe('NONE');
    expect(integratedFunction(dev.apiTemplate, route)).toBe(functionLogicalId(dev.apiTemplate, stage, fallback.id));
  });

  it('runs a REQUEST authorizer with simple responses, the Authorization header as identity source and a cache per credential', () => {
    dev.apiTemplate.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    const props = resources(dev.apiTemplate, 'AWS::ApiGatewayV2::Authorizer')[authorizerId()].Properties;
    expect(props).toMatchObject({
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      AuthorizerResultTtlInSeconds: authorizer.cacheTtlSeconds,
      IdentitySource: ['$request.header.Authorization'],
    });
    expect(JSON.stringify(props.AuthorizerUri)).toContain(liveAliasId(dev.apiTemplate, stage, authorizer.id));
    expect(actionsOf(roleStatements(dev.apiTemplate, stage, authorizer.id), 'dynamodb:')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  it('configures CORS preflight, access logs and throttling on the default stage', () => {
    dev.apiTemplate.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: Match.objectLike({
        AllowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Signature', 'X-Request-Id'],
        AllowOrigins: ['*'],
      }),
    });
    probe.apiTemplate.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['https://app.example.com'] }),
    });
    dev.apiTemplate.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AccessLogs'), 'Arn'] }, Format: Match.stringLikeRegexp('\\$context.requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
    dev.apiTemplate.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HttpApi'), 'ApiEndpoint'] } });
    dev.apiTemplate.hasOutput('ApiBaseUrl', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^HttpApi'), 'ApiEndpoint'] }, '/api']] },
    });
  });

  it('runs every function on nodejs24.x (the newest Node runtime Lambda offers, 2026-12) arm64 with tracing, its own log group and role, and no managed policies', () => {
    for (const t of [dev.apiTemplate, prod.apiTemplate, probe.apiTemplate]) {
      // The service's own functions; CDK's provider that reads prod's us-east-1 references (edge) is CDK's.
      const functions = Object.values(resources(t, 'AWS::Lambda::Function')).filter((f) => String(f.Properties.FunctionName ?? '').startsWith('despacho-'));
      expect(functions.length).toBeGreaterThanOrEqual(routes.length + 2);
      const roles = new Set<string>();
      const logGroups = new Set<string>();
      for (const { Properties: p } of functions) {
        expect(p.Runtime).toBe('nodejs24.x');
        expect(p.Architectures).toEqual(['arm64']);
        expect(p.Handler).toBe('index.handler');
        expect(p.TracingConfig).toEqual({ Mode: 'Active' });
        roles.add(p.Role['Fn::GetAtt'][0]);
        logGroups.add(p.LoggingConfig.LogGroup.Ref);
      }
      expect(roles.size).toBe(functions.length);
      expect(logGroups.size).toBe(functions.length);
      for (const role of roles) expect(resources(t, 'AWS::IAM::Role')[role].Properties.ManagedPolicyArns, role).toBeUndefined();
    }
    expect(Object.values(resources(dev.apiTemplate, 'AWS::Logs::LogGroup')).every((g) => g.Properties.RetentionInDays === 30)).toBe(true);
    expect(Object.values(resources(probe.apiTemplate, 'AWS::Logs::LogGroup')).every((g) => g.Properties.RetentionInDays === 90)).toBe(true);
    expect(Object.values(resources(prod.apiTemplate, 'AWS::Logs::LogGroup')).every((g) => g.Properties.RetentionInDays === 365)).toBe(true);
  });

  it('gives defaults of 256 MB and 10 s to routes and 30 s to workers', () => {
    expect(functionProps(dev.apiTemplate, stage, 'Me')).toMatchObject({ MemorySize: 256, Timeout: 10 });
    expect(functionProps(probe.apiTemplate, 'staging', probeWorker.id)).toMatchObject({ MemorySize: 256, Timeout: 30 });
  });

  it('sets the common environment and only the variables each entry uses', () => {
    const me = functionProps(dev.apiTemplate, stage, 'Me').Environment.Variables;
    expect(me).toEqual({
      STAGE: 'dev',
      TABLE_NAME: 'despacho-dev',
      POWERTOOLS_SERVICE_NAME: 'despacho',
      POWERTOOLS_TRACE_ENABLED: 'true',
      LOG_LEVEL: 'DEBUG',
      NODE_OPTIONS: '--enable-source-maps',
      ORDER_SYNC_EVERY_MINUTES: '60',
      CORS_ORIGINS: '*',
    });
    const worker = functionProps(probe.apiTemplate, 'staging', probeWorker.id).Environment.Variables;
    expect(Object.keys(worker).sort()).toEqual(
      ['STAGE', 'TABLE_NAME', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_TRACE_ENABLED', 'LOG_LEVEL', 'NODE_OPTIONS', 'ORDER_SYNC_EVERY_MINUTES', 'BUCKET_NAME', 'EVENT_BUS_NAME', 'QUEUE_URL_WEBHOOK_DELIVERY', 'SCHEDULER_ROLE_ARN', 'SCHEDULER_GROUP'].sort(),
    );
    expect(queueUrlVariable('webhookDelivery')).toBe('QUEUE_URL_WEBHOOK_DELIVERY');
    expect(queueUrlVariable('marketplaceSync')).toBe('QUEUE_URL_MARKETPLACE_SYNC');
    expect(worker).toMatchObject({ STAGE: 'staging', LOG_LEVEL: 'INFO', EVENT_BUS_NAME: 'despacho-staging', SCHEDULER_GROUP: 'despacho-staging', ORDER_SYNC_EVERY_MINUTES: '15' });
    expect(flat(worker.BUCKET_NAME)).toBe('despacho-staging-files-<AWS::AccountId>-<AWS::Region>');
    expect(flat(worker.QUEUE_URL_WEBHOOK_DELIVERY)).toMatch(/^import\(Despacho-staging-data:.*WebhookDeliveryQueue/);
  });

  it('grants each route exactly the DynamoDB actions its catalog entry lists', () => {
    for (const r of [...routes, authorizer]) {
      const statements = roleStatements(dev.apiTemplate, stage, r.id);
      // A rate-limited route also counts its token's window: UpdateItem on rate# keys only (stage-config.test.ts).
      const table = [...(r.uses?.table ?? []), ...('rate' in r && r.rate ? ['UpdateItem' as const] : [])];
      expect(actionsOf(statements, 'dynamodb:'), r.id).toEqual([...new Set(table)].map((a) => `dynamodb:${a}`).sort());
      for (const s of statements) expect(s.Effect).toBe('Allow');
    }
    // Health and the fallback touch no data at all.
    expect(actionsOf(roleStatements(dev.apiTemplate, stage, 'Health'), 'dynamodb:')).toEqual([]);
    expect(actionsOf(roleStatements(dev.apiTemplate, stage, fallback.id), 'dynamodb:')).toEqual([]);
    // Me reads one item from the table itself, no index, and counts its rate window.
    const me = roleStatements(dev.apiTemplate, stage, 'Me');
    expect(actionsOf(me, 'dynamodb:')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    expect(resourcesFor(me, 'dynamodb:GetItem')).toEqual(['arn:<AWS::Partition>:dynamodb:<AWS::Region>:<AWS::AccountId>:table/despacho-dev']);
    // Query also reaches the GSIs.
    expect(resourcesFor(roleStatements(dev.apiTemplate, stage, 'AdminTokensList'), 'dynamodb:Query')).toEqual([
      'arn:<AWS::Partition>:dynamodb:<AWS::Region>:<AWS::AccountId>:table/despacho-dev',
      'arn:<AWS::Partition>:dynamodb:<AWS::Region>:<AWS::AccountId>:table/despacho-dev/index/*',
    ]);
  });

  it('scopes bucket, queue, bus and scheduler grants to the named resources', () => {
    const statements = roleStatements(probe.apiTemplate, 'staging', probeWorker.id);
    expect(resourcesFor(statements, 's3:GetObject')).toEqual(['arn:<AWS::Partition>:s3:::despacho-staging-files-<AWS::AccountId>-<AWS::Region>/*']);
    expect(resourcesFor(statements, 's3:PutObject')).toEqual(['arn:<AWS::Partition>:s3:::despacho-staging-files-<AWS::AccountId>-<AWS::Region>/*']);
    expect(resourcesFor(statements, 's3:ListBucket')).toEqual(['arn:<AWS::Partition>:s3:::despacho-staging-files-<AWS::AccountId>-<AWS::Region>']);
    expect(actionsOf(statements, 's3:')).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(resourcesFor(statements, 'sqs:SendMessage')).toEqual([expect.stringMatching(/^import\(Despacho-staging-data:.*WebhookDeliveryQueue/)]);
    // staging is pinned to its account and region (referenceStaging): ARNs built by the stack carry them.
    expect(resourcesFor(statements, 'events:PutEvents')).toEqual(['arn:<AWS::Partition>:events:sa-east-1:222222222222:event-bus/despacho-staging']);
    expect(resourcesFor(statements, 'scheduler:CreateSchedule')).toEqual([
      'arn:<AWS::Partition>:scheduler:sa-east-1:222222222222:schedule/despacho-staging/*',
    ]);
    const passRole = statements.filter((s) => list(s.Action).includes('iam:PassRole'));
    expect(passRole).toHaveLength(1);
    expect(passRole[0].Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    expect(flat(passRole[0].Resource)).toMatch(/^import\(Despacho-staging-data:.*SchedulerRole/);
    // The event source, not a hand-written statement, lets the worker consume its own queue.
    expect(actionsOf(statements, 'sqs:')).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    // A route with no `uses` gets nothing beyond its logs and tracing.
    expect(actionsOf(roleStatements(dev.apiTemplate, stage, 'Health'), '').sort()).toEqual(
      ['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments'].sort(),
    );
  });

  const secretFunctions = [...routes, ...workers].filter((d) => d.uses?.secrets).map((d) => d.id);
  /** A role's statements but the cursor key's (its own test below). */
  const besideCursorKey = (statements: ReturnType<typeof roleStatements>) => statements.filter((s) => !JSON.stringify(s.Resource).includes('CursorKey'));
  const functionIds = (t: Template, stage: string) =>
    Object.values(resources(t, 'AWS::Lambda::Function')).map((r) => (r.Properties.FunctionName as string).slice(`despacho-${stage}-`.length));

  it('grants the marketplace secrets under the stage prefix only to the functions with secrets, the sync worker read only', () => {
    // AdminMigrateChannelCodes moves credentials stored under a former channel code (issue 17, item 2);
    // the carrier accounts (issue 18) are secrets under the same path, the list reading only, and
    // ship, cancel (voids), the quotes and the tracking poll read them to call the carriers.
    expect(secretFunctions.sort()).toEqual([
      'AdminMigrateChannelCodes',
      'CarriersConnect',
      'CarriersDisconnect',
      'CarriersList',
      'MarketplaceSync',
      'MarketplacesConnect',
      'MarketplacesDisconnect',
      'OrdersCancel',
      'OrdersShip',
      'ShippingQuotes',
      'TrackingPoll',
    ]);
    const readOnly = ['MarketplaceSync', 'CarriersList', 'OrdersCancel', 'OrdersShip', 'ShippingQuotes', 'TrackingPoll'];
    const secrets = 'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:despacho-dev/marketplace/*';
    for (const id of secretFunctions) {
      const statements = besideCursorKey(roleStatements(dev.apiTemplate, stage, id));
      // What lambdas/infra/marketplace-credentials.ts calls: no ListSecrets or BatchGetSecretValue (the
      // port's `list` is not called in AWS), so no Resource '*'.
      expect(actionsOf(statements, 'secretsmanager:'), id).toEqual(
        (readOnly.includes(id) ? ['GetSecretValue'] : ['CreateSecret', 'DeleteSecret', 'GetSecretValue', 'PutSecretValue', 'RestoreSecret', 'TagResource']).map((a) => `secretsmanager:${a}`),
      );
      for (const action of actionsOf(statements, 'secretsmanager:')) expect(resourcesFor(statements, action), `${id} ${action}`).toEqual([secrets]);
      const tagging = statements.filter((s) => list(s.Action).includes('secretsmanager:TagResource'));
      expect(tagging).toHaveLength(readOnly.includes(id) ? 0 : 1);
      if (tagging.length) expect(tagging[0].Condition).toEqual({ 'ForAllValues:StringEquals': { 'aws:TagKeys': ['despacho:account', 'despacho:channel'] } });
      expect(actionsOf(statements, 'kms:'), id).toEqual([]);
    }
    expect(resourcesFor(roleStatements(prod.apiTemplate, 'prod', 'MarketplaceSync'), 'secretsmanager:GetSecretValue')).toEqual([
      // prod is pinned to its configured account and region (lib/stages.ts): they are written as given.
      'arn:<AWS::Partition>:secretsmanager:sa-east-1:111111111111:secret:despacho-prod/marketplace/*',
    ]);
    // Everything else, the order routes that never touch credentials included, gets none.
    for (const id of functionIds(dev.apiTemplate, stage).filter((f) => !secretFunctions.includes(f))) {
      expect(actionsOf(besideCursorKey(roleStatements(dev.apiTemplate, stage, id)), 'secretsmanager:'), id).toEqual([]);
    }
    for (const id of ['OrdersList', 'OrdersSync', 'OrdersSyncStatus', 'MarketplacesList']) {
      expect(actionsOf(roleStatements(dev.apiTemplate, stage, id), 'secretsmanager:'), id).toEqual([]);
    }
  });

  it('lets only the functions whose routes page by cursor read the cursor key, and nothing else of it', () => {
    const cursorFunctions = [...routes, ...workers].filter((d) => d.uses?.cursors).map((d) => d.id).sort();
    expect(cursorFunctions).toEqual(['AdminAccountTariffDecisions', 'AdminMigrateChannelCodes', 'AdminMigrateSigningSecrets', 'AdminMigrateTokenScopes', 'DeliveriesList', 'EventsList', 'ReviewBatches', 'ReviewDecisions', 'ReviewGroups', 'ReviewInbox', 'ReviewQueue', 'ReviewSearch']);
    for (const id of functionIds(dev.apiTemplate, stage)) {
      const onKey = roleStatements(dev.apiTemplate, stage, id).filter((s) => JSON.stringify(s.Resource).includes('CursorKey'));
      expect(onKey.flatMap((s) => list(s.Action)), id).toEqual(cursorFunctions.includes(id) ? ['secretsmanager:GetSecretValue'] : []);
    }
  });

  it("tells the console its bucket's name, for its content security policy, without any grant on the bucket", () => {
    const consoleIds = functionIds(dev.apiTemplate, stage).filter((id) => id.startsWith('Console'));
    expect(consoleIds.length).toBeGreaterThan(0);
    for (const id of consoleIds) {
      expect(functionProps(dev.apiTemplate, stage, id).Environment.Variables.BUCKET_NAME, id).toBeTruthy();
      expect(actionsOf(roleStatements(dev.apiTemplate, stage, id), 's3:'), id).toEqual([]);
    }
  });

  it('grants every Secrets Manager call the credentials module makes in AWS, and only the tags it writes', () => {
    const source = ['lambdas/infra/sealed-store.ts', 'lambdas/infra/marketplace-credentials.ts', 'lambdas/infra/carrier-credentials.ts'].map((f) => readFileSync(join(projectRoot, f), 'utf8')).join('\n');
    const commands = [...source.matchAll(/new (\w+)Command\(/g)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThan(0);
    const granted = actionsOf(roleStatements(dev.apiTemplate, stage, 'MarketplacesConnect'), 'secretsmanager:');
    // BatchGetSecretValue backs the port's `list`, which no deployed function calls (see lib/functions.ts).
    for (const c of commands.filter((c) => c !== 'BatchGetSecretValue')) expect(granted, c).toContain(`secretsmanager:${c}`);
    const tagKeys = [...new Set([...source.matchAll(/\{ Key: '([^']+)', Value: /g)].map((m) => m[1]))].sort();
    expect(tagKeys).toEqual([...marketplaceSecretTagKeys].sort());
  });

  it('tells the functions with secrets their prefix and every function the sync interval', () => {
    for (const id of functionIds(dev.apiTemplate, stage)) {
      const env = functionProps(dev.apiTemplate, stage, id).Environment.Variables;
      expect(env.MARKETPLACE_SECRET_PREFIX, id).toBe(secretFunctions.includes(id) ? 'despacho-dev' : undefined);
      expect(env.ORDER_SYNC_EVERY_MINUTES, id).toBe('60');
    }
    expect(functionProps(prod.apiTemplate, 'prod', 'MarketplacesConnect').Environment.Variables.MARKETPLACE_SECRET_PREFIX).toBe('despacho-prod');
    // GET /v1/orders/sync/status computes next_scheduled_sync from the interval the schedule was built with.
    expect(functionProps(probe.apiTemplate, 'staging', 'OrdersSyncStatus').Environment.Variables.ORDER_SYNC_EVERY_MINUTES).toBe('15');
  });

  it('builds the order, shipping, inventory and warehouse routes and the marketplace sync worker', () => {
    const added = routes.filter((r) => /^\/v1\/(orders|shipping|inventory|warehouses)(\/|$)/.test(r.path));
    expect(added.length).toBeGreaterThanOrEqual(19);
    for (const r of added) {
      const route = routeByKey(dev.apiTemplate, routeKey(r));
      expect(integratedFunction(dev.apiTemplate, route), r.id).toBe(functionLogicalId(dev.apiTemplate, stage, r.id));
      expect(route.AuthorizationType, r.id).toBe('CUSTOM');
    }
    const sync = workers.find((w) => w.id === 'MarketplaceSync')!;
    expect(sync).toMatchObject({ queue: 'marketplaceSync', batchSize: 1, timeoutSeconds: 900 });
    expect(functionProps(dev.apiTemplate, stage, 'MarketplaceSync')).toMatchObject({ Timeout: 900, MemorySize: 1024 });
    dev.apiTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: aliasName(liveAliasId(dev.apiTemplate, stage, 'MarketplaceSync')),
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('MarketplaceSyncQueue') },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // Lambda requires the queue's visibility timeout to be at least the function's timeout.
    expect(queues.marketplaceSync.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(sync.timeoutSeconds!);
  });

  it('keeps every stack well under CloudFormation\'s 500 resources by putting each tag\'s routes in a nested stack', () => {
    for (const s of [dev, prod, probe]) {
      const templates = { data: s.dataTemplate, ...s.apiTemplates };
      for (const [name, t] of Object.entries(templates)) {
        expect(Object.keys(t.toJSON().Resources).length, `${s.settings.stage} ${name}`).toBeLessThanOrEqual(400);
      }
    }
    const tags = [...new Set(routes.map((r) => r.tag))].sort();
    expect(Object.keys(dev.api.routeStacks).sort()).toEqual(tags);
    dev.apiTemplates.api.resourceCountIs('AWS::CloudFormation::Stack', tags.length);
    for (const r of routes) expect(dev.api.routeStacks[r.tag].node.tryFindChild(`${r.id}Route`), r.id).toBeDefined();
    // The authorizer and the fallback stay with the API.
    dev.apiTemplates.api.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    dev.apiTemplates.api.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
  });

  it('never grants wildcard actions or Resource * for DynamoDB, S3, SQS or Secrets Manager', () => {
    for (const t of [dev.dataTemplate, dev.apiTemplate, prod.apiTemplate, probe.dataTemplate, probe.apiTemplate]) {
      for (const policy of Object.values(resources(t, 'AWS::IAM::Policy'))) {
        // A Deny (the drift check's on the reads of data) grants nothing.
        for (const s of (policy.Properties.PolicyDocument.Statement as Statement[]).filter((s) => (s as { Effect?: string }).Effect !== 'Deny')) {
          const actions = list(s.Action);
          for (const a of actions) expect(a).not.toMatch(/^(dynamodb|s3|sqs|events|scheduler|iam|secretsmanager):\*$|^\*$/);
          if (actions.some((a) => /^(dynamodb|s3|sqs|secretsmanager):/.test(a))) expect(list(s.Resource)).not.toContain('*');
        }
      }
    }
  });

  it('feeds each worker from its queue with partial batch failures', () => {
    probe.apiTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: aliasName(liveAliasId(probe.apiTemplate, 'staging', probeWorker.id)),
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('WebhookDeliveryQueue') },
      BatchSize: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    dev.apiTemplate.resourceCountIs('AWS::Lambda::EventSourceMapping', workers.length);
  });

  it('writes accepted manifests with a worker fed by its queue two at a time, and lets the submit route only store and queue', () => {
    dev.apiTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: aliasName(liveAliasId(dev.apiTemplate, stage, 'ManifestIntake')),
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('ManifestIntakeQueue') },
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    expect(functionProps(dev.apiTemplate, stage, 'ManifestIntake')).toMatchObject({ Timeout: 900 });
    const submit = functionProps(dev.apiTemplate, stage, 'CouriersSubmit').Environment.Variables;
    expect(Object.keys(submit)).toEqual(expect.arrayContaining(['BUCKET_NAME', 'QUEUE_URL_MANIFEST_INTAKE']));
    expect(Object.keys(submit)).not.toContain('EVENT_BUS_NAME');
    expect(queues.manifestIntake.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(workers.find((w) => w.id === 'ManifestIntake')!.timeoutSeconds!);
  });

  it('refuses a worker that outlives its queue visibility timeout', () => {
    const slow: WorkerDef = { ...probeWorker, id: 'Slow', uses: undefined, timeoutSeconds: 120 };
    expect(() =>
      buildApp('dev', {
        app: new App({ context: { 'aws:cdk:bundling-stacks': [] } }),
        nag: false,
        catalog: { workers: [slow] },
      }),
    ).toThrow(/Slow times out after 120 s, longer than the 60 s visibility timeout of webhookDelivery/);
  });
});

describe('cdk-nag', { timeout: 180_000 }, () => {
  // One test per stage (each runs the whole pack over its app): the three together took 44.6 s quiet.
  for (const [name, s] of [['dev', () => dev], ['staging (the probe stage)', () => probe], ['prod', () => prod]] as const) {
    it(`reports no unacknowledged AwsSolutions errors or warnings for ${name}`, () => {
      const findings = nagFindings(s().app);
      expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
      expect(findings.filter((f) => f.severity === 'warning')).toEqual([]);
      // cdk-nag 3 reports through the validation plugin API, not annotations; construct
      // annotations must still be free of errors and of AwsSolutions warnings.
      for (const stack of [s().data, s().api]) {
        expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
        expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
      }
    });
  }

  it('fails synthesis on a finding nobody acknowledged', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
    buildApp('dev', { app });
    new s3.Bucket(new Stack(app, 'Careless'), 'Bucket');
    expect(() => app.synth()).toThrow(/AwsSolutions-S1/);
  });

  it('acknowledges only findings that actually occur, each with a written reason', () => {
    for (const s of [dev, prod, probe]) {
      // The same checks with acknowledgments ignored (isAcknowledged is the pack's private hook).
      const raw = new AwsSolutionsChecks() as unknown as { isAcknowledged: () => boolean; validateScope: AwsSolutionsChecks['validateScope'] };
      raw.isAcknowledged = () => false;
      const violations = raw.validateScope(s.app).violations;
      for (const ack of acknowledgments(s.app)) {
        expect(ack.reason.length, `${ack.path} ${ack.id}`).toBeGreaterThan(20);
        const hit = violations.find(
          (v) => v.ruleName === ack.id && v.violatingResources.some((r) => r.constructPath === ack.path || r.constructPath?.startsWith(`${ack.path}/`)),
        );
        expect(hit, `${ack.path} acknowledges ${ack.id}, which it does not trigger`).toBeDefined();
      }
    }
  });
});

describe('manifest pipeline', { timeout: 60_000 }, () => {
  let api: Template;
  beforeAll(() => {
    // The file's dev synth (its templates are JSON taken once): a second build of dev cost about 5 s.
    api = dev.apiTemplate;
  });

  const definition = () => {
    const machines = api.findResources('AWS::StepFunctions::StateMachine');
    const [machine] = Object.values(machines) as { Properties: { DefinitionString: unknown } }[];
    return JSON.stringify(Stack.of(new Stack()).resolve(machine.Properties.DefinitionString));
  };

  type AslState = { Type: string; Next?: string; Default?: string; Branches?: { StartAt: string; States: Record<string, AslState> }[]; ItemProcessor?: { ProcessorConfig?: { Mode?: string } }; Retry?: unknown[]; Catch?: unknown[] };

  /**
   * The stage Maps in the order a run meets them: from Prepare along the main path (past the
   * superseded check), each Map named `<stage>Pages`, the Maps of a Parallel state's branches
   * together as one step.
   */
  function stepsOf(asl: { StartAt: string; States: Record<string, AslState> }): { stages: string[]; states: AslState[] }[] {
    const steps: { stages: string[]; states: AslState[] }[] = [];
    const mapsOf = (states: Record<string, AslState>, start: string): [string, AslState][] => {
      const out: [string, AslState][] = [];
      for (let name: string | undefined = start; name; ) {
        const state: AslState = states[name];
        if (state.Type === 'Map') out.push([name, state]);
        name = state.Type === 'Choice' ? state.Default : state.Next;
      }
      return out;
    };
    for (let name: string | undefined = asl.StartAt; name; ) {
      const state: AslState = asl.States[name];
      if (state.Type === 'Map') steps.push({ stages: [name], states: [state] });
      if (state.Type === 'Parallel') {
        const maps = state.Branches!.flatMap((b) => mapsOf(b.States, b.StartAt));
        steps.push({ stages: maps.map(([n]) => n), states: maps.map(([, s]) => s) });
      }
      name = state.Type === 'Choice' ? state.Default : state.Next;
    }
    return steps;
  }

  it('is one state machine running the stages in the steps the pipeline declares, each a Distributed Map over pages', () => {
    api.resourceCountIs('AWS::StepFunctions::StateMachine', 1);
    const text = definition();
    const machine = Object.values(api.findResources('AWS::StepFunctions::StateMachine'))[0] as { Properties: { DefinitionString: unknown } };
    // The definition is a Fn::Join of JSON text and references (function ARNs inside strings).
    const joined = Stack.of(new Stack()).resolve(machine.Properties.DefinitionString) as string | { 'Fn::Join': [string, unknown[]] };
    const asl = JSON.parse(typeof joined === 'string' ? joined : joined['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'ref')).join(''));
    const steps = stepsOf(asl);
    expect(steps.map((s) => s.stages)).toEqual(stageSteps.map((stages) => stages.map((s) => `${s}Pages`)));
    expect(steps.flatMap((s) => s.stages).sort()).toEqual(stageNames.map((s) => `${s}Pages`).sort());
    for (const state of steps.flatMap((s) => s.states)) expect(state.ItemProcessor?.ProcessorConfig?.Mode).toBe('DISTRIBUTED');
    expect(text).toContain('States.ALL');
    expect(text).toContain('BackoffRate');
  });

  it('gives the start worker states:StartExecution on that state machine and its ARN', () => {
    api.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'states:StartExecution' })]) },
    });
    api.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'despacho-dev-PipelineStart',
      Environment: { Variables: Match.objectLike({ PIPELINE_STATE_MACHINE_ARN: Match.anyValue() }) },
    });
  });

  it('builds a function for every pipeline task', () => {
    for (const task of Object.values(pipelineTasks)) api.hasResourceProperties('AWS::Lambda::Function', { FunctionName: `despacho-dev-${task.id}` });
  });
});
