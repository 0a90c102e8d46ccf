import { run as runCommand } from '#support/run';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource, Duration, NestedStack, Stack } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { CfnBackupPlan } from 'aws-cdk-lib/aws-backup';
import { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Alarm, AlarmRule, CompositeAlarm, Dashboard, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnSchedule } from 'aws-cdk-lib/aws-scheduler';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, DistributedMap, Parallel, Pass, StateMachine, Succeed } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customMetricCount, estimate, inventory, priceBook, profiles, readAssembly, runsPerDay, type Assembly } from '#scripts/cost-estimate';

/**
 * npm run cost (scripts/cost-estimate.ts) on a small stage synthesized here with the CDK: every
 * count it prices is read from the templates (nested stack included, another stage's stack left
 * out), the total is the sum of its lines, and what it does not know is listed as not priced.
 */
let dir: string;
let assembly: Assembly;

const fn = (scope: Stack | NestedStack, id: string, memoryMb: number, arch: Architecture) =>
  new LambdaFunction(scope, id, {
    functionName: `despacho-test-${id}`,
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({})'),
    memorySize: memoryMb,
    architecture: arch,
    tracing: Tracing.ACTIVE,
    environment: { LOG_LEVEL: 'INFO' },
  });

function synthFixture(outdir: string) {
  const app = new App({ outdir });
  const stack = new Stack(app, 'Despacho-test-main', { env: { account: '111111111111', region: 'sa-east-1' } });
  // The API: a route in a nested stack (as the real api stack puts its routes), and an authorizer with a cache.
  const routes = new NestedStack(stack, 'Routes');
  const route = fn(routes, 'OrdersList', 1024, Architecture.ARM_64);
  const authorizerFn = fn(stack, 'Authorizer', 256, Architecture.ARM_64);
  const api = new HttpApi(stack, 'Api');
  const authorizer = new HttpLambdaAuthorizer('Auth', authorizerFn, { responseTypes: [HttpLambdaResponseType.SIMPLE], resultsCacheTtl: Duration.minutes(5), identitySource: ['$request.header.Authorization'] });
  api.addRoutes({ path: '/orders', methods: [HttpMethod.GET], integration: new HttpLambdaIntegration('List', route), authorizer });
  // Workers: webhook delivery (x86 on purpose) from a queue; a scheduled one every 15 minutes.
  const deliveries = new Queue(stack, 'WebhookDeliveryQueue');
  fn(stack, 'WebhookDelivery', 128, Architecture.X86_64).addEventSource(new SqsEventSource(deliveries, { batchSize: 10 }));
  const ticks = new Queue(stack, 'TrackingPollQueue');
  fn(stack, 'TrackingPoll', 256, Architecture.ARM_64).addEventSource(new SqsEventSource(ticks));
  new CfnSchedule(stack, 'Every15', { flexibleTimeWindow: { mode: 'OFF' }, scheduleExpression: 'cron(0/15 * * * ? *)', target: { arn: ticks.queueArn, roleArn: 'arn:aws:iam::111111111111:role/scheduler' } });
  // The pipeline: a task, a Parallel of two states, a Distributed Map of one task a page, Succeed.
  const prepare = fn(stack, 'PipelinePrepare', 512, Architecture.ARM_64);
  const page = fn(stack, 'PipelineStagePage', 1024, Architecture.ARM_64);
  const map = new DistributedMap(stack, 'Pages', { itemsPath: '$.pages' });
  map.itemProcessor(new LambdaInvoke(stack, 'Page', { lambdaFunction: page, payloadResponseOnly: true }));
  const definition = new LambdaInvoke(stack, 'Prepare', { lambdaFunction: prepare, payloadResponseOnly: true })
    .next(new Parallel(stack, 'Both').branch(new Pass(stack, 'A')).branch(new Pass(stack, 'B')))
    .next(map)
    .next(new Succeed(stack, 'Done'));
  new StateMachine(stack, 'Pipeline', { definitionBody: DefinitionBody.fromChainable(definition) });
  // Data: an on-demand table with point-in-time recovery, backed up daily for 35 days.
  new TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING }, billing: Billing.onDemand(), pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true } });
  new Bucket(stack, 'Files', { serverAccessLogsBucket: new Bucket(stack, 'AccessLogs') });
  new CfnBackupPlan(stack, 'Backups', { backupPlan: { backupPlanName: 'daily', backupPlanRule: [{ ruleName: 'daily', targetBackupVault: 'vault', scheduleExpression: 'cron(0 5 ? * * *)', lifecycle: { deleteAfterDays: 35 } }] } });
  // Observability: two single-metric alarms, one math alarm of two metrics, a composite, a dashboard, a log group.
  const m = (name: string) => new Metric({ namespace: 'Despacho', metricName: name, period: Duration.minutes(5) });
  const a1 = new Alarm(stack, 'A1', { metric: m('One'), threshold: 1, evaluationPeriods: 1 });
  const a2 = new Alarm(stack, 'A2', { metric: m('Two'), threshold: 1, evaluationPeriods: 1 });
  new Alarm(stack, 'A3', { metric: new MathExpression({ expression: 'a / b', usingMetrics: { a: m('Three'), b: m('Four') }, period: Duration.minutes(5) }), threshold: 1, evaluationPeriods: 1 });
  new CompositeAlarm(stack, 'Area', { alarmRule: AlarmRule.anyOf(a1, a2) });
  new Dashboard(stack, 'Board');
  new LogGroup(stack, 'Logs', { retention: RetentionDays.ONE_YEAR });
  new Key(stack, 'Secrets', { enableKeyRotation: true });
  new Key(stack, 'Alarms', { enableKeyRotation: true });
  // The edge: a web ACL of two rules and a distribution.
  new CfnWebACL(stack, 'Acl', {
    scope: 'CLOUDFRONT',
    defaultAction: { allow: {} },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'acl', sampledRequestsEnabled: true },
    rules: [
      { name: 'common', priority: 0, overrideAction: { none: {} }, statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesCommonRuleSet' } }, visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'common', sampledRequestsEnabled: true } },
      { name: 'rate', priority: 1, action: { block: {} }, statement: { rateBasedStatement: { limit: 2000, aggregateKeyType: 'IP' } }, visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'rate', sampledRequestsEnabled: true } },
    ],
  });
  new Distribution(stack, 'Edge', { defaultBehavior: { origin: new HttpOrigin('api.example.com') } });
  // A resource type the script does not know (it has a price of its own).
  new CfnResource(stack, 'Stream', { type: 'AWS::Kinesis::Stream', properties: { ShardCount: 1 } });
  // Another stage's stack in the same assembly: none of it may be counted.
  const other = new Stack(app, 'Despacho-other-main');
  fn(other, 'Elsewhere', 3008, Architecture.X86_64);
  new Key(other, 'OtherKey');
  app.synth();
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'despacho-cost-'));
  synthFixture(dir);
  assembly = readAssembly(dir, 'test');
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run cost: what it reads from the templates', () => {
  it('reads the stage\'s stack and its nested stack, leaves another stage out, and takes the region from the synth', () => {
    expect(assembly.templates).toHaveLength(2);
    expect(assembly.templates.some((t) => t.endsWith('.nested.template.json'))).toBe(true);
    expect(assembly.region).toBe('sa-east-1');
    const inv = inventory(assembly);
    expect(inv.functions.map((f) => f.name).sort()).toEqual(
      ['Authorizer', 'OrdersList', 'PipelinePrepare', 'PipelineStagePage', 'TrackingPoll', 'WebhookDelivery'].map((n) => `despacho-test-${n}`).sort(),
    );
    expect(inv.kmsKeys).toBe(2);
  });

  it('counts functions with their memory and architecture, the route, the cached authorizer and the workers by kind', () => {
    const inv = inventory(assembly);
    const byName = Object.fromEntries(inv.functions.map((f) => [f.name, f]));
    expect(byName['despacho-test-OrdersList']).toMatchObject({ memoryMb: 1024, arch: 'arm64', traced: true, logLevel: 'INFO' });
    expect(byName['despacho-test-WebhookDelivery']).toMatchObject({ memoryMb: 128, arch: 'x86_64' });
    expect(inv.routes.map((f) => f.name)).toEqual(['despacho-test-OrdersList']);
    expect(inv.authorizer.map((f) => f.name)).toEqual(['despacho-test-Authorizer']);
    expect(inv.authorizerTtlSeconds).toBe(300);
    expect(inv.workers.map((w) => [w.fn.name, w.kind, w.runsPerDay]).sort()).toEqual([
      ['despacho-test-TrackingPoll', 'scheduled', 96],
      ['despacho-test-WebhookDelivery', 'webhookDelivery', 0],
    ]);
  });

  it('counts the states a run and a page go through, from the state machine definition', () => {
    const [sm] = inventory(assembly).stateMachines;
    // Prepare, Both, A, B, Pages, Done once a run; Page once a page.
    expect(sm.transitions).toEqual({ perRun: 6, perPage: 1 });
    expect(sm.type).toBe('STANDARD');
    expect(sm.childType).toBe('STANDARD');
    expect(sm.topTasks.map((f) => f.name)).toEqual(['despacho-test-PipelinePrepare']);
    expect(sm.pageTasks.map((f) => f.name)).toEqual(['despacho-test-PipelineStagePage']);
  });

  it('counts alarm metrics, composite alarms, dashboards, the web ACL\'s rules, the distribution, schedules and backups', () => {
    const inv = inventory(assembly);
    expect(inv.alarms).toEqual({ metrics: 4, highResolutionMetrics: 0, alarms: 3, composite: 1 });
    expect(inv.dashboards).toBe(1);
    expect(inv.logRetentionDays).toBe(365);
    expect(inv.webAcls.map((w) => w.rules)).toEqual([2]);
    expect(inv.distributions).toBe(1);
    expect(inv.schedules.map((s) => s.runsPerDay)).toEqual([96]);
    expect(inv.tables).toEqual([{ id: expect.any(String), onDemand: true, pitr: true, tableClass: undefined }]);
    expect(inv.backupCopies).toBe(35);
    expect(inv.buckets.map((b) => [b.id.replace(/[0-9A-F]{8}$/, ''), b.accessLogs]).sort()).toEqual([
      ['AccessLogs', true],
      ['Files', false],
    ]);
  });
});

describe('npm run cost: the estimate', () => {
  const volume = profiles.small;

  it('prices the region the stage was synthesized for, and the total is the sum of its lines and of its services', () => {
    const e = estimate(assembly, volume);
    expect(e.region).toBe('sa-east-1');
    const sum = e.lines.reduce((a, l) => a + l.usd, 0);
    expect(e.total).toBe(sum);
    expect(Object.values(e.byService).reduce((a, v) => a + v, 0)).toBeCloseTo(e.total, 9);
    for (const l of e.lines) expect(l.usd).toBe(l.quantity * priceBook.prices[l.price].usd['sa-east-1']);
    expect(Object.keys(e.byService).sort()).toEqual(
      ['API Gateway', 'AWS Backup', 'CloudFront', 'CloudWatch', 'Data transfer', 'DynamoDB', 'EventBridge', 'KMS', 'Lambda', 'S3', 'SQS', 'Step Functions', 'WAF', 'X-Ray'].sort(),
    );
  });

  it('prices each function at its own memory and architecture, and the authorizer behind its cache', () => {
    const e = estimate(assembly, volume, { region: 'us-east-1' });
    const line = (item: string) => e.lines.find((l) => l.item === item);
    const requests = volume.requestsPerDay * 30;
    expect(line('API routes: invocations')?.quantity).toBe(requests);
    expect(line('API routes: compute (arm64)')?.quantity).toBeCloseTo(requests * 0.08 * 1, 6);
    expect(line('authorizer: invocations')?.quantity).toBeCloseTo(requests * 0.1, 6);
    const deliveries = volume.webhookDeliveriesPerDay * 30 * 1.05;
    expect(line('webhook delivery: compute (x86_64)')).toMatchObject({ price: 'lambda.gbSecond.x86_64', quantity: expect.closeTo(deliveries * 0.4 * (128 / 1024), 6) });
    expect(line('scheduled despacho-test-TrackingPoll: invocations')?.quantity).toBe(96 * 30);
  });

  it('prices what it counted: alarm metrics, composites, the dashboard, keys, the web ACL and its rules, transitions and backups', () => {
    const e = estimate(assembly, volume, { region: 'us-east-1' });
    const q = (prefix: string) => e.lines.filter((l) => l.item.startsWith(prefix)).map((l) => l.quantity);
    expect(q('alarms (')).toEqual([4]);
    expect(q('composite alarms')).toEqual([1]);
    expect(q('dashboards')).toEqual([1]);
    expect(q('customer managed keys')).toEqual([2]);
    expect(q('custom metrics')).toEqual([customMetricCount()]);
    expect(e.lines.filter((l) => l.service === 'WAF').map((l) => [l.price, l.quantity])).toEqual([
      ['waf.webAcl', 1],
      ['waf.rule', 2],
      ['waf.request', volume.requestsPerDay * 30],
    ]);
    const pages = Math.ceil(volume.itemsPerManifest / 500);
    expect(q('state transitions')).toEqual([volume.manifestsPerDay * 30 * (6 + pages)]);
    const table = e.lines.find((l) => l.item.startsWith('storage ('))!;
    expect(e.lines.find((l) => l.service === 'AWS Backup')?.quantity).toBeCloseTo(35 * table.quantity, 9);
    expect(e.lines.find((l) => l.item.startsWith('point-in-time'))?.quantity).toBe(table.quantity);
  });

  it('lists a resource type it does not know as not priced instead of leaving it out', () => {
    const e = estimate(assembly, volume);
    expect(e.notPriced).toContainEqual({ what: 'AWS::Kinesis::Stream', count: 1, why: 'a resource type the script does not know' });
    expect(e.inventory.unknown).toEqual({ 'AWS::Kinesis::Stream': 1 });
  });

  it('prices WAF, CloudFront and backups at 0 for a stage without them, saying none is in the templates', () => {
    const bare: Assembly = { ...assembly, resources: assembly.resources.filter((r) => !/WAFv2|CloudFront|Backup/.test(r.type)) };
    const e = estimate(bare, volume);
    expect(e.byService.WAF).toBe(0);
    expect(e.byService.CloudFront).toBe(0);
    expect(e.byService['AWS Backup']).toBe(0);
    expect(e.lines.filter((l) => l.item.includes('(none in the templates)')).map((l) => l.item)).toEqual([
      'backup plans (none in the templates)',
      'web ACLs (none in the templates)',
      'distributions (none in the templates)',
    ]);
    expect(e.lines.some((l) => l.item.includes('responses and downloads'))).toBe(true);
  });

  it('reads the schedule expressions the stacks write', () => {
    expect(runsPerDay('cron(0 * * * ? *)')).toBe(24);
    expect(runsPerDay('cron(0/30 * * * ? *)')).toBe(48);
    expect(runsPerDay('cron(0 5 ? * * *)')).toBe(1);
    expect(runsPerDay('cron(0,30 8-17 * * ? *)')).toBe(20);
    expect(runsPerDay('rate(5 minutes)')).toBe(288);
  });

  it('keeps every price with its source, both regions and the date it was read', () => {
    expect(priceBook.read).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [key, p] of Object.entries(priceBook.prices)) {
      expect(p.source, key).toMatch(/^https:\/\/aws\.amazon\.com\//);
      for (const region of Object.keys(priceBook.regions)) expect(p.usd[region], `${key} ${region}`).toBeGreaterThan(0);
      expect(!!p.checked || Object.keys(p.assumed ?? {}).length === Object.keys(priceBook.regions).length, `${key}: checked somewhere, or assumed in every region`).toBe(true);
    }
  });
});

describe('npm run cost: the command', () => {
  const run = (...args: string[]) => runCommand(process.execPath, ['--import', 'tsx', 'scripts/cost-estimate.ts', ...args], { timeout: 60_000 });

  it('prints the lines by service, the total, what is not priced and the assumptions', { timeout: 60_000 }, async () => {
    const out = await run('--dir', dir, '--stage', 'test', '--profile', 'large', '--price-region', 'us-east-1');
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/monthly cost at the large volume, us-east-1 prices/);
    expect(out.stdout).toMatch(/prices as published, read \d{4}-\d{2}-\d{2}/);
    expect(out.stdout).toMatch(/^total\s+a month\s+[\d,]+\.\d\d$/m);
    expect(out.stdout).toMatch(/1 x AWS::Kinesis::Stream: a resource type the script does not know/);
    expect(out.stdout).toMatch(/routeMs = 80: ms per API route invocation/);
  });

  it('refuses an unknown profile, a bad number and a stage that was not synthesized, naming it', { timeout: 60_000 }, async () => {
    expect((await run('--dir', dir, '--profile', 'huge')).stderr).toMatch(/--profile huge: use small or large/);
    expect((await run('--dir', dir, '--requests-per-day', 'lots')).stderr).toMatch(/--requests-per-day "lots": a number of 0 or more/);
    expect((await run('--dir', dir)).stderr).toMatch(/holds the stacks of test, other: name one with --stage/);
    const missing = await run('--dir', dir, '--stage', 'prod');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no stack of stage prod in .*: run npx cdk synth -c stage=prod first/);
  });
});
