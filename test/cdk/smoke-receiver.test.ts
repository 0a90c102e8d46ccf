import { describe, expect, it } from 'vitest';
import { resolveStageConfig } from '#lib/stage';
import { smokeReceiverConcurrency } from '#lib/smoke-receiver';
import { stageConfigs } from '#lib/stages';
import { cachedStage } from '#support/stage-cache';

type Resource = { Type: string; Properties: any };

describe("the smoke test's webhook receiver in the stacks", { timeout: 120_000 }, () => {
  it('is in staging only: a function URL on its live alias, its URL an output, its role on the smoke items of the table alone, two at a time', async () => {
    // The run's one synth of staging and of dev (test/support/stage-cache.ts; cdk-nag on).
    const [staging, dev] = await Promise.all([cachedStage('staging'), cachedStage('dev')]);
    const api = staging.template(staging.api);
    const resources = api.toJSON().Resources as Record<string, Resource>;
    const urls = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Url');
    expect(urls).toHaveLength(1);
    expect(urls[0].Properties).toMatchObject({ AuthType: 'NONE', Qualifier: 'live' });
    expect(Object.keys(api.toJSON().Outputs)).toContain('SmokeReceiverUrl');
    const [, fn] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.FunctionName === 'despacho-staging-SmokeReceiver')!;
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(smokeReceiverConcurrency);
    const roleId = fn.Properties.Role['Fn::GetAtt'][0];
    const statements = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: { Ref: string }) => x.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[]);
    const tableStatements = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(tableStatements).toEqual([expect.objectContaining({ Action: ['dynamodb:PutItem', 'dynamodb:Query'], Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['smoke#*'] } } })]);
    expect([stageConfigs.dev.smokeReceiver, stageConfigs.staging.smokeReceiver, stageConfigs.prod.smokeReceiver]).toEqual([false, true, false]);
    expect(Object.values(dev.json(dev.api).Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::Lambda::Url')).toEqual([]);
    expect(() => resolveStageConfig('dev', { smokeReceiver: 'sometimes' }, {})).toThrow(/smokeReceiver "sometimes": use on or off/);
  });
});
