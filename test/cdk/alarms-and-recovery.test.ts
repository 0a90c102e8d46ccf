import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { alarmThresholds as th } from '#lib/alarm-thresholds';
import type { BuiltStage } from '#lib/app';
import { driftDeniedDataReads } from '#lib/drift';
import { uploadPathPattern, wafBodyRules } from '#lib/edge';
import { watchedWafRules } from '#lib/edge-watch';
import { budgetNotifications, dynamodbOperations } from '#lib/observability';
import { resolveStageConfig, StageConfigError } from '#lib/stage';
import { referenceProd, referenceStaging, stageApp } from '#support/cdk';

/**
 * Issue 43, items 5 and 6: alarms where failures hide (CloudFront, WAF, DynamoDB, AWS Backup, the
 * account's concurrency, drift), the managed rules' count-then-block switch, the runbook's links as
 * URLs, and recovery (a copy of every backup outside the region or account, the files in the
 * backup plan, daily drift detection, a budget, termination protection). The reference prod synth
 * has all of them; dev leaves out what costs money without a setting (the edge and its alarms, the
 * backup plan, the budget) and keeps the rest.
 */
type Resource = { Type: string; Properties: any; DependsOn?: string[] };
const ofType = (t: Template, type: string) => Object.entries(t.toJSON().Resources as Record<string, Resource>).filter(([, r]) => r.Type === type);
const alarmsByName = (t: Template) => Object.fromEntries(ofType(t, 'AWS::CloudWatch::Alarm').map(([, r]) => [r.Properties.AlarmName as string, r.Properties]));

/**
 * One build per stage and settings in this file (issue 45): the describes read the same reference
 * prod and dev, and prod with the managed rules blocking, twice or three times. A built stage is only
 * read here, and its app synthesizes once (Template.fromStack keeps the assembly), so a second
 * describe takes the first's instead of building and synthesizing it again (about 5 s each).
 */
const builds = new Map<string, BuiltStage>();
function built(stage: string, opts: Parameters<typeof stageApp>[1] = {}): BuiltStage {
  const key = JSON.stringify([stage, opts]);
  let b = builds.get(key);
  if (!b) builds.set(key, (b = stageApp(stage, opts)));
  return b;
}

describe('alarms where failures hide', { timeout: 180_000 }, () => {
  let prod: BuiltStage;
  let dev: BuiltStage;
  let prodApi: Template;
  let prodEdge: Template;
  let prodWatch: Template;
  let devApi: Template;
  beforeAll(() => {
    prod = built('prod');
    dev = built('dev');
    prodApi = Template.fromStack(prod.api);
    prodEdge = Template.fromStack(prod.edge!);
    prodWatch = Template.fromStack(prod.edgeWatch!);
    devApi = Template.fromStack(dev.api);
  });

  it("alarms on the table's throttled requests and system errors, summed over every operation the functions call", () => {
    const alarms = alarmsByName(prodApi);
    for (const [kind, metricName, threshold] of [
      ['throttled-requests', 'ThrottledRequests', th.platform.dynamodbThrottledRequests],
      ['system-errors', 'SystemErrors', th.platform.dynamodbSystemErrors],
    ] as const) {
      const alarm = alarms[`despacho-prod-dynamodb-${kind}`];
      expect(alarm.Threshold).toBe(threshold);
      const metrics = alarm.Metrics.filter((m: any) => m.MetricStat);
      expect(metrics.map((m: any) => m.MetricStat.Metric.Dimensions)).toEqual(dynamodbOperations.map((op) => [{ Name: 'Operation', Value: op }, { Name: 'TableName', Value: 'despacho-prod' }]));
      expect(metrics.every((m: any) => m.MetricStat.Metric.MetricName === metricName)).toBe(true);
      // CloudWatch takes at most 10 metrics in an alarm's math.
      expect(metrics.length).toBeLessThanOrEqual(10);
    }
  });

  it("alarms when the account's claimed Lambda concurrency reaches 80% of its quota, which -c accountConcurrencyQuota sets", () => {
    expect(alarmsByName(prodApi)['despacho-prod-account-concurrency-near-quota']).toMatchObject({ MetricName: 'ClaimedAccountConcurrency', Namespace: 'AWS/Lambda', Statistic: 'Maximum', Threshold: 800 });
    const bigger = Template.fromStack(built('dev', { nag: false, overrides: { accountConcurrencyQuota: 3000 } }).api);
    expect(alarmsByName(bigger)['despacho-dev-account-concurrency-near-quota'].Threshold).toBe(2400);
  });

  it('alarms on backup and copy jobs that fail, are aborted or expire, where the stage backs up', () => {
    const rule = ofType(Template.fromStack(prod.data), 'AWS::Events::Rule').find(([, r]) => r.Properties.Name === 'despacho-prod-backup-jobs-failed')![1];
    expect(rule.Properties.EventPattern).toEqual({ source: ['aws.backup'], 'detail-type': ['Backup Job State Change', 'Copy Job State Change'], detail: { state: ['FAILED', 'ABORTED', 'EXPIRED'] } });
    expect(alarmsByName(prodApi)['despacho-prod-backup-jobs-failed']).toMatchObject({ Namespace: 'AWS/Events', MetricName: 'MatchedEvents', Dimensions: [{ Name: 'RuleName', Value: 'despacho-prod-backup-jobs-failed' }] });
    expect(alarmsByName(devApi)['despacho-dev-backup-jobs-failed']).toBeUndefined();
  });

  it("alarms on CloudFront's 5xx rate in us-east-1, where CloudFront reports it, for the stage's distribution", () => {
    expect(prod.edgeWatch!.region).toBe('us-east-1');
    const alarm = alarmsByName(prodWatch)['despacho-prod-edge-cloudfront-5xx-rate'];
    expect(alarm.Threshold).toBe(th.edge.cloudFront5xxPercent);
    const stats = alarm.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
    expect(stats.map((m: any) => m.MetricName).sort()).toEqual(['5xxErrorRate', 'Requests']);
    for (const m of stats) expect(m.Dimensions).toEqual(expect.arrayContaining([{ Name: 'Region', Value: 'Global' }, expect.objectContaining({ Name: 'DistributionId' })]));
  });

  it("alarms on a spike of each web ACL rule's matches: blocked, or counted while the managed rules count", () => {
    const alarms = alarmsByName(prodWatch);
    for (const { rule, switchable } of watchedWafRules) {
      expect(alarms[`despacho-prod-${rule}-waf-rule-matches`], rule).toMatchObject({
        Namespace: 'AWS/WAFV2',
        MetricName: switchable ? 'CountedRequests' : 'BlockedRequests',
        Dimensions: [{ Name: 'Rule', Value: rule }, { Name: 'WebACL', Value: 'despacho-prod-edge' }],
        Threshold: th.edge.wafRuleMatches,
      });
    }
    const blocking = Template.fromStack(built('prod', { overrides: { wafManagedRules: 'block' } }).edgeWatch!);
    for (const { rule } of watchedWafRules) expect(alarmsByName(blocking)[`despacho-prod-${rule}-waf-rule-matches`].MetricName).toBe('BlockedRequests');
  });

  it('notifies through one edge composite in us-east-1, to a topic subscribed like the stage topic', () => {
    const [[, composite]] = ofType(prodWatch, 'AWS::CloudWatch::CompositeAlarm');
    expect(composite.Properties.AlarmName).toBe('despacho-prod-area-edge');
    const names = [...(composite.Properties.AlarmRule as string).matchAll(/ALARM\("([^"]+)"\)/g)].map((m) => m[1]);
    expect(names.sort()).toEqual(Object.keys(alarmsByName(prodWatch)).sort());
    expect(composite.Properties.AlarmActions).toHaveLength(1);
    expect(composite.Properties.OKActions).toEqual(composite.Properties.AlarmActions);
    prodWatch.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'despacho-prod-edge-alarms' });
    prodWatch.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: referenceProd.alarmEmail });
    for (const a of Object.values(alarmsByName(prodWatch))) expect(a.AlarmActions).toBeUndefined();
  });

  it('subscribes a pager by its HTTPS endpoint to every alarm topic of the stage', () => {
    const url = 'https://events.pagerduty.com/integration/0123456789abcdef/enqueue';
    const paged = built('prod', { overrides: { alarmHttpsEndpoints: url } });
    for (const stack of [paged.api, paged.edgeWatch!]) Template.fromStack(stack).hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'https', Endpoint: url });
  });

  it('links every alarm and composite to its runbook entry under the stage docs URL', () => {
    const base = referenceProd.docsBaseUrl as string;
    const nested = Object.values(prod.api.routeStacks).map((n) => Template.fromStack(n));
    for (const t of [prodApi, prodWatch, ...nested]) {
      for (const type of ['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::CompositeAlarm']) {
        for (const [id, r] of ofType(t, type)) {
          if (!/Runbook:/.test(r.Properties.AlarmDescription)) continue;
          expect(r.Properties.AlarmDescription, id).toMatch(new RegExp(`Runbook: ${base.replace(/[.]/g, '\\.')}runbook\\.md#[a-z0-9-]+$`));
        }
      }
    }
  });

  it('takes the docs URL from GitHub Actions when the stage gives none, and refuses one that is not https', () => {
    expect(resolveStageConfig('dev', {}, { GITHUB_REPOSITORY: 'acme/despacho', GITHUB_SERVER_URL: 'https://github.com' }).docsBaseUrl).toBe('https://github.com/acme/despacho/blob/main/docs/operators/');
    expect(resolveStageConfig('dev', { docsBaseUrl: 'https://docs.example.com/operators' }, {}).docsBaseUrl).toBe('https://docs.example.com/operators/');
    expect(resolveStageConfig('dev', {}, {}).docsBaseUrl).toBeUndefined();
    expect(() => resolveStageConfig('dev', { docsBaseUrl: 'ftp://x' }, {})).toThrow(StageConfigError);
  });
});

describe('WAF managed rules: count, then block', { timeout: 180_000 }, () => {
  let counting: Template;
  let blocking: Template;
  beforeAll(() => {
    counting = Template.fromStack(built('prod').edge!);
    blocking = Template.fromStack(built('prod', { overrides: { wafManagedRules: 'block' } }).edge!);
  });
  const rules = (t: Template) => ofType(t, 'AWS::WAFv2::WebACL')[0][1].Properties.Rules as any[];

  it('starts every stage counting, and blocks with -c wafManagedRules=block; the rate limit per IP blocks in both', () => {
    for (const stage of ['dev', 'staging', 'prod'] as const) expect(resolveStageConfig(stage, stage === 'prod' ? referenceProd : stage === 'staging' ? referenceStaging : {}, {}).wafManagedRules).toBe('count');
    expect(() => resolveStageConfig('dev', { wafManagedRules: 'off' }, {})).toThrow(/wafManagedRules "off": use count or block/);
    for (const [t, managed, own] of [
      [counting, { Count: {} }, { Count: {} }],
      [blocking, { None: {} }, { Block: {} }],
    ] as const) {
      const byName = Object.fromEntries(rules(t).map((r) => [r.Name, r]));
      expect(byName.RatePerIp.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 429 } } });
      for (const group of ['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet']) expect(byName[group].OverrideAction, group).toEqual(managed);
      expect(byName.BodyRulesOutsideUploads.Action).toEqual(own);
    }
  });

  it('lets the body rules only label inside their groups, and refuses what they labelled outside the upload routes', () => {
    const byName = Object.fromEntries(rules(blocking).map((r) => [r.Name, r]));
    for (const { group, rule } of wafBodyRules) {
      expect(byName[group].Statement.ManagedRuleGroupStatement.RuleActionOverrides).toContainEqual({ Name: rule, ActionToUse: { Count: {} } });
    }
    const [labels, outside] = byName.BodyRulesOutsideUploads.Statement.AndStatement.Statements;
    expect(labels.OrStatement.Statements.map((s: any) => s.LabelMatchStatement.Key)).toEqual(wafBodyRules.map((r) => r.label));
    expect(outside.NotStatement.Statement.RegexMatchStatement).toMatchObject({ FieldToMatch: { UriPath: {} }, RegexString: uploadPathPattern() });
    expect(byName.BodyRulesOutsideUploads.Priority).toBeGreaterThan(Math.max(...wafBodyRules.map((r) => byName[r.group].Priority)));
  });
});

describe('recovery you can rehearse', { timeout: 180_000 }, () => {
  let prod: BuiltStage;
  let dev: BuiltStage;
  beforeAll(() => {
    prod = built('prod');
    dev = built('dev');
  });

  it('copies every recovery point to the vault of backupCopyVaultArn, outside the stage region or account, kept backupCopyRetentionDays', () => {
    const [[, plan]] = ofType(Template.fromStack(prod.data), 'AWS::Backup::BackupPlan');
    expect(plan.Properties.BackupPlan.BackupPlanRule[0].CopyActions).toEqual([{ DestinationBackupVaultArn: referenceProd.backupCopyVaultArn, Lifecycle: { DeleteAfterDays: 90 } }]);
    expect(() => resolveStageConfig('prod', { ...referenceProd, backupCopyVaultArn: 'arn:aws:backup:sa-east-1:111111111111:backup-vault:same' }, {})).toThrow(/must leave the stage's region or account/);
    const without = built('prod', { nag: false, overrides: { backupCopyVaultArn: '' } });
    expect(ofType(Template.fromStack(without.data), 'AWS::Backup::BackupPlan')[0][1].Properties.BackupPlan.BackupPlanRule[0].CopyActions).toBeUndefined();
  });

  it('backs the versioned files bucket up in the same plan, with AWS Backup for S3 policies', () => {
    const t = Template.fromStack(prod.data);
    const selection = ofType(t, 'AWS::Backup::BackupSelection').find(([, r]) => r.Properties.BackupSelection.SelectionName === 'despacho-prod-files')![1];
    const [filesId] = ofType(t, 'AWS::S3::Bucket').find(([id]) => id.startsWith('Files'))!;
    expect(selection.Properties.BackupSelection.Resources).toEqual([{ 'Fn::GetAtt': [filesId, 'Arn'] }]);
    const role = (t.toJSON().Resources as Record<string, Resource>)[selection.Properties.BackupSelection.IamRoleArn['Fn::GetAtt'][0]];
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(/AWSBackupServiceRolePolicyForS3Backup.*AWSBackupServiceRolePolicyForS3Restore/s);
  });

  it("detects drift of every stack of the stage's region daily, with a role that reads configuration and no data, and alarms on a drifted one", () => {
    const t = Template.fromStack(prod.api);
    const schedules = ofType(t, 'AWS::Scheduler::Schedule').filter(([, r]) => String(r.Properties.Name).startsWith('despacho-prod-drift-'));
    expect(schedules).toHaveLength(2 + Object.keys(prod.api.routeStacks).length);
    for (const [, s] of schedules) {
      expect(JSON.stringify(s.Properties.Target.Arn)).toContain(':scheduler:::aws-sdk:cloudformation:detectStackDrift');
      expect(s.Properties.ScheduleExpression).toMatch(/^cron\(\d+ 4 \* \* \? \*\)$/);
    }
    // The nested stacks' inputs name them by their stack id (a Ref the template resolves at deploy).
    const stackNames = schedules.map(([, s]) => s.Properties.Target.Input).filter((i) => typeof i === 'string').map((i) => JSON.parse(i).StackName);
    expect(stackNames).toEqual(expect.arrayContaining(['Despacho-prod-data', 'Despacho-prod-api']));
    const roleId = schedules[0][1].Properties.Target.RoleArn['Fn::GetAtt'][0];
    const role = (t.toJSON().Resources as Record<string, Resource>)[roleId];
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(/policy\/ReadOnlyAccess"/);
    const statements = ofType(t, 'AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    const deny = statements.find((st: any) => st.Effect === 'Deny');
    expect([...deny.Action].sort()).toEqual([...driftDeniedDataReads].sort());
    expect(deny.Resource).toBe('*');
    const [ruleId, rule] = ofType(t, 'AWS::Events::Rule').find(([, r]) => r.Properties.Name === 'despacho-prod-stack-drifted')!;
    expect(rule.Properties.EventPattern.detail['status-details']).toEqual({ 'stack-drift-status': ['DRIFTED'] });
    // A rule's Ref on the default bus is its name.
    expect(alarmsByName(t)['despacho-prod-stacks-drift']).toMatchObject({ MetricName: 'MatchedEvents', Dimensions: [{ Name: 'RuleName', Value: { Ref: ruleId } }] });
  });

  it("detects drift of the stage's us-east-1 stacks (the edge's and its alarms') daily from us-east-1, alarming in the edge's area", () => {
    const prodWatch = Template.fromStack(prod.edgeWatch!);
    const schedules = ofType(prodWatch, 'AWS::Scheduler::Schedule');
    expect(schedules.map(([, s]) => JSON.parse(s.Properties.Target.Input).StackName).sort()).toEqual(['Despacho-prod-edge', 'Despacho-prod-edge-watch']);
    for (const [, s] of schedules) {
      expect(JSON.stringify(s.Properties.Target.Arn)).toContain(':scheduler:::aws-sdk:cloudformation:detectStackDrift');
      expect(s.Properties.ScheduleExpression).toMatch(/^cron\(\d+ 4 \* \* \? \*\)$/);
    }
    // The role may check the edge's stacks only, in us-east-1 (the stack's region), and reads no data.
    const roleId = schedules[0][1].Properties.Target.RoleArn['Fn::GetAtt'][0];
    const statements = ofType(prodWatch, 'AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    expect([...statements.find((st: any) => st.Effect === 'Deny').Action].sort()).toEqual([...driftDeniedDataReads].sort());
    const detect = statements.find((st: any) => [st.Action].flat().includes('cloudformation:DetectStackDrift'));
    expect(JSON.stringify(detect.Resource)).toContain(':cloudformation:us-east-1:');
    expect(JSON.stringify(detect.Resource)).toContain(':stack/Despacho-prod-edge*');
    const [ruleId, rule] = ofType(prodWatch, 'AWS::Events::Rule').find(([, r]) => r.Properties.Name === 'despacho-prod-edge-stack-drifted')!;
    expect(rule.Properties.EventPattern.detail['status-details']).toEqual({ 'stack-drift-status': ['DRIFTED'] });
    expect(alarmsByName(prodWatch)['despacho-prod-edge-stacks-drift']).toMatchObject({ MetricName: 'MatchedEvents', Dimensions: [{ Name: 'RuleName', Value: { Ref: ruleId } }] });
    const composite = ofType(prodWatch, 'AWS::CloudWatch::CompositeAlarm')[0][1];
    expect(JSON.stringify(composite.Properties.AlarmRule)).toContain('despacho-prod-edge-stacks-drift');
  });

  it('budgets the account monthly, notifying the alarm topic and budgetEmails at 80% forecast and 100% actual', () => {
    const budgeted = built('prod', { overrides: { budgetEmails: 'finance@example.com' } });
    const t = Template.fromStack(budgeted.api);
    const [[, budget]] = ofType(t, 'AWS::Budgets::Budget');
    expect(budget.Properties.Budget).toMatchObject({ BudgetType: 'COST', TimeUnit: 'MONTHLY', BudgetLimit: { Amount: 500, Unit: 'USD' } });
    const notes = budget.Properties.NotificationsWithSubscribers;
    expect(notes.map((n: any) => [n.Notification.NotificationType, n.Notification.Threshold])).toEqual(budgetNotifications.map((n) => [n.notificationType, n.threshold]));
    for (const n of notes) expect(n.Subscribers).toEqual([{ SubscriptionType: 'SNS', Address: expect.anything() }, { SubscriptionType: 'EMAIL', Address: 'finance@example.com' }]);
    const [[, policy]] = ofType(t, 'AWS::SNS::TopicPolicy');
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('budgets.amazonaws.com');
    expect(ofType(Template.fromStack(dev.api), 'AWS::Budgets::Budget')).toHaveLength(0);
    expect(() => resolveStageConfig('dev', { budgetMonthlyUsd: '-5' }, {})).toThrow(/budgetMonthlyUsd/);
  });

  it('protects every prod stack from termination, and none of dev', () => {
    const prodStacks = [prod.data, prod.api, prod.edge!, prod.edgeWatch!];
    expect(prodStacks.map((s) => [s.stackName, s.terminationProtection])).toEqual(prodStacks.map((s) => [s.stackName, true]));
    expect([dev.data, dev.api].map((s) => s.terminationProtection)).toEqual([false, false]);
    expect(dev.edgeWatch).toBeUndefined();
  });
});
